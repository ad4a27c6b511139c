begin;
select plan(13);
select pgflow_tests.reset_db();

-- SETUP: sequential first -> second -> last; first completed, second's task claimed and stuck
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"one"'::jsonb);
select count(*) from pgflow_tests.start_task(:'run_id', 'second');
select pgflow_tests.task_msg_id(:'run_id', 'second') as second_msg \gset
select max(id) as last_event from pgflow.run_events \gset

-- TEST: complete_step completes the started step by hand
select results_eq(
  format($$select * from pgflow.complete_step(%L, 'second', '{"x": 2}'::jsonb, 'alice', 'worker hung')$$, :'run_id'),
  format($$values (%L::uuid, 'started'::text, true, null::text)$$, :'run_id'),
  'complete_step returns the run, started, changed'
);
select results_eq(
  format($$select status, output, remaining_tasks from pgflow.step_states where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('completed'::text, '{"x": 2}'::jsonb, 0)$$,
  'second is completed with the output given'
);

-- TEST: its started task is cancelled and its message archived
select results_eq(
  format($$select status, cancelled_at is not null, output from pgflow.step_tasks where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('cancelled'::text, true, null::jsonb)$$,
  'the stuck task is cancelled'
);
select is(pgflow_tests.message_exists('sequential', :'second_msg', 'q'), false, 'its message left the queue');
select is(pgflow_tests.message_exists('sequential', :'second_msg', 'a'), true, 'its message is archived');
select results_eq(
  format($$select step_slug, run_status from pgflow.cancelled_tasks(array[%L::uuid], array['second'], array[0])$$, :'run_id'),
  $$values ('second'::text, 'started'::text)$$,
  'the worker learns that its task was cancelled'
);

-- TEST: the dependent starts with the hand-made output
select results_eq(
  $$select step_slug, input from pgflow_tests.read_and_start('sequential')$$,
  $$values ('last'::text, '{"second": {"x": 2}}'::jsonb)$$,
  'last starts with second''s output as input'
);

-- TEST: the stuck worker's late report changes nothing
select pgflow.complete_task(:'run_id', 'second', 0, '"late"'::jsonb, 1);
select results_eq(
  format($$select ss.output, t.status from pgflow.step_states as ss join pgflow.step_tasks as t using (run_id, step_slug)
           where ss.run_id = %L and ss.step_slug = 'second'$$, :'run_id'),
  $$values ('{"x": 2}'::jsonb, 'cancelled'::text)$$,
  'a late report of the cancelled task is ignored'
);

-- TEST: step:completed by alice
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events
           where run_id = %L and id > %s and step_slug = 'second' order by id$$, :'run_id', :'last_event'),
  $$values ('second'::text, 'step:completed'::text, 'alice'::text, 'worker hung'::text)$$,
  'step:completed is attributed to alice with the reason'
);

-- TEST: completing the last step by hand completes the run with that output
select pgflow.complete_step(:'run_id', 'last', '"by hand"'::jsonb, 'alice', null);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"last": "by hand"}'::jsonb)$$,
  'completing the leaf by hand completes the run with its output'
);

-- TEST: a started map step with a completed, a started and a queued task
select pgflow_tests.setup_flow('root_map');
select run_id as map_run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'map_run', 'items', 0, '"a"'::jsonb);
select count(*) from pgflow_tests.start_task(:'map_run', 'items', 1);
select * from pgflow.complete_step(:'map_run', 'items', '["x", "y", "z"]'::jsonb, 'alice', null);
select results_eq(
  format($$select task_index, status from pgflow.step_tasks where run_id = %L order by task_index$$, :'map_run'),
  $$values (0, 'completed'::text), (1, 'cancelled'), (2, 'cancelled')$$,
  'the started and the queued task are cancelled, the completed one kept'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t where t.run_id = :'map_run'
     and pgflow_tests.message_exists('root_map', t.message_id, 'q')),
  0,
  'no message of the map step is left in the queue'
);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'map_run'),
  $$values ('completed'::text, '{"items": ["x", "y", "z"]}'::jsonb)$$,
  'the run completes with the hand-made array'
);

select * from finish();
rollback;

begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: a -> m (map over a's output, 3 elements) -> r, max_attempts 1; m's task 0
-- completes, task 1 fails: the run fails (task 2 cancelled)
select pgflow.create_flow('f', max_attempts => 1);
select pgflow.add_step('f', 'a');
select pgflow.add_step('f', 'm', array['a'], step_type => 'map');
select pgflow.add_step('f', 'r', array['m']);
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'f', 'x');
select run_id from pgflow.start_flow('f', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.complete_task(:'run_id', 'a', 0, '[10, 20, 30]'::jsonb, 1);
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.complete_task(:'run_id', 'm', 0, '"ten"'::jsonb, 1);
select pgflow.fail_task(:'run_id', 'm', 1, 'item 1 broke', 1);
select results_eq(
  format($$select task_index, status from pgflow.step_tasks where run_id = %L and step_slug = 'm' order by task_index$$, :'run_id'),
  $$values (0, 'completed'::text), (1, 'failed'), (2, 'cancelled')$$,
  'setup: m has one completed, one failed, one cancelled task; the run failed'
);
select count(*) as chunks_before from pgflow.map_task_inputs where run_id = :'run_id' and step_slug = 'm' \gset

-- TEST: retry_run resets the map step whole: 3 fresh queued tasks
select results_eq(
  format($$select status, changed from pgflow.retry_run(%L, 'alice', null)$$, :'run_id'),
  $$values ('started'::text, true)$$,
  'retry_run starts the run again'
);
select results_eq(
  format($$select status, initial_tasks, remaining_tasks from pgflow.step_states where run_id = %L and step_slug = 'm'$$, :'run_id'),
  $$values ('started'::text, 3, 3)$$,
  'm is started again with 3 remaining tasks'
);
select results_eq(
  format($$select task_index, status, attempts_count, attempt_offset, output, error_message from pgflow.step_tasks
           where run_id = %L and step_slug = 'm' order by task_index$$, :'run_id'),
  $$values (0, 'queued'::text, 1, 1, null::jsonb, null::text), (1, 'queued', 1, 1, null, null), (2, 'queued', 1, 1, null, null)$$,
  'm has 3 new queued tasks, no output or error, going on from attempt 1 (offset 1: a fresh budget), the completed one too'
);
select is(
  (select count(*) from pgflow.map_task_inputs where run_id = :'run_id' and step_slug = 'm'),
  :'chunks_before'::bigint,
  'the map inputs are written again, once'
);
select is(pgflow_tests.queue_count('f'), 3::bigint, 'three messages in the queue');

-- TEST: the three tasks run with their elements, at attempt 2
select results_eq(
  $$select step_slug, task_index, attempts_count, input
    from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null) order by task_index$$,
  $$values ('m'::text, 0, 2, '10'::jsonb), ('m', 1, 2, '20'::jsonb), ('m', 2, 2, '30'::jsonb)$$,
  'each task is claimed at attempt 2 with its element'
);
select pgflow.complete_task(:'run_id', 'm', i, to_jsonb(i * 100), 2) from generate_series(0, 2) as i;
select results_eq(
  $$select step_slug, input from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('r'::text, '{"m": [0, 100, 200]}'::jsonb)$$,
  'r gets the new outputs of m (not the output of the first, completed attempt)'
);
select pgflow.complete_task(:'run_id', 'r', 0, '"done"'::jsonb, 1);

-- TEST: the run completes
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"r": "done"}'::jsonb)$$,
  'the run completes'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'a'),
  1,
  'a was not run again'
);

select * from finish();
rollback;

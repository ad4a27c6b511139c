begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a root map with three tasks; tasks 2 and 0 completed (rows written as a caller does)
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 3);
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = to_jsonb(array['a', 'b', 'c'])->task_index
where run_id = :'run_id' and task_index in (2, 0);
select pgflow._complete_steps(array[:'run_id', :'run_id']::uuid[], array['items', 'items'], array['"c"', '"a"']::jsonb[]);

-- TEST: two of three tasks done: the step loses them and stays started
select results_eq(
  format($$select status, remaining_tasks, output, completed_at from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1, null::jsonb, null::timestamptz)$$,
  'remaining_tasks 3 -> 1, still started, no output'
);

-- TEST: the last task completes the step with the outputs in task_index order
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '"b"'
where run_id = :'run_id' and task_index = 1;
select pgflow._complete_steps(array[:'run_id']::uuid[], array['items'], array['"b"']::jsonb[]);
select results_eq(
  format($$select status, remaining_tasks, output, completed_at is not null from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '["a", "b", "c"]'::jsonb, true)$$,
  'the map step completes with ["a", "b", "c"]'
);

-- TEST: the run moves forward (here: completes)
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"items": ["a", "b", "c"]}'::jsonb)$$,
  'the run completes with the map output'
);
select is(pgflow_tests.queue_count('root_map'), 3::bigint, 'messages are the caller''s job (still in the queue)');

select * from finish();
rollback;

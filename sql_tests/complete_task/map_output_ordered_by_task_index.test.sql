begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a root map of three elements, all tasks started
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '["a", "b", "c"]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 1, 10);

-- TEST: the step stays started until the last task completes
select pgflow.complete_task(:'run_id', 'items', 2, '"C"'::jsonb);
select pgflow.complete_task(:'run_id', 'items', 0, '"A"'::jsonb);
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1, null::jsonb)$$,
  'after 2 of 3 tasks the map step is started with remaining_tasks 1 and no output'
);

-- TEST: output in task_index order, not completion order
select pgflow.complete_task(:'run_id', 'items', 1, '"B"'::jsonb);
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '["A", "B", "C"]'::jsonb)$$,
  'the map output is the array of task outputs ordered by task_index'
);
select is(
  (select output from pgflow.runs where run_id = :'run_id'),
  '{"items": ["A", "B", "C"]}'::jsonb,
  'the run output carries the aggregated map array'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'completed',
  'the run is completed'
);

select * from finish();
rollback;

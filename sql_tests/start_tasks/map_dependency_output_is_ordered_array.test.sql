begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; mapper tasks completed out of order
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[10, 20, 30]'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 2, '"c"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 0, '"a"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 1, '"b"'::jsonb);

-- TEST: the reducer receives the aggregated map output in task_index order
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'reducer')),
  '{"mapper": ["a", "b", "c"]}'::jsonb,
  'the map dependency output is the array of task outputs ordered by task_index'
);

select * from finish();
rollback;

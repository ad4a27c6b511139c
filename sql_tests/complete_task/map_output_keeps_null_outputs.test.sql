begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: a root map of two elements whose tasks return null
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 1, 10);
select pgflow.complete_task(:'run_id', 'items', 1, null);
select pgflow.complete_task(:'run_id', 'items', 0, '{"v": 0}'::jsonb);

-- TEST: every task contributes one element, NULL outputs as JSON null
select is(
  (select output from pgflow.step_states where run_id = :'run_id'),
  '[{"v": 0}, null]'::jsonb,
  'a NULL task output becomes a JSON null element at its index'
);

select * from finish();
rollback;

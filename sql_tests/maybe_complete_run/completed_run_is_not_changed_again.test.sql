begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: a completed run
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[]'::jsonb) \gset
create temp table before_run as select * from pgflow.runs where run_id = :'run_id';
update pgflow.step_states set output = '["changed"]' where run_id = :'run_id';

-- TEST: calling it again does not rewrite the run
select pgflow.maybe_complete_run(:'run_id');
select results_eq(
  format('select * from pgflow.runs where run_id = %L', :'run_id'),
  'select * from before_run',
  'a completed run is not updated again (output and completed_at unchanged)'
);

select * from finish();
rollback;

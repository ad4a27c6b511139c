begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('root_map');

-- TEST: the run can finish inside start_flow; the returned state already shows it
select is(pgflow.start_flow_with_states('root_map', '[]') #>> '{run,status}', 'completed',
  'a root map over [] returns a completed run');
select is(
  (select s -> 'output' from jsonb_array_elements(
     pgflow.get_run_with_states((select run_id from pgflow.runs)) -> 'steps') as s),
  '[]'::jsonb,
  'the empty map step output is []');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP: a flow with no steps completes inside start_flow and has no step states
select pgflow_tests.reset_db();
select pgflow.create_flow('stepless');
select pgflow.start_flow('stepless', '{}', 'aaaaaaaa-0000-0000-0000-000000000001');

-- TEST
select is(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'steps', '[]'::jsonb,
  'steps is an empty array (not NULL) when the run has no step states');
select is(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') #>> '{run,status}', 'completed',
  'the run is reported as completed');

select * from finish();
rollback;

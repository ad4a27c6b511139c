begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');

-- TEST
select is(pgflow.start_flow_with_states('sequential', '{}', 'cccccccc-0000-0000-0000-000000000001') #>> '{run,run_id}',
  'cccccccc-0000-0000-0000-000000000001', 'the given run_id is used');
select is(pgflow.start_flow_with_states('sequential', '{}', run_id => null) #>> '{run,flow_slug}',
  'sequential', 'run_id NULL generates a new run id');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');

-- TEST
select lives_ok($$ select pgflow.delete_flow_and_data('no_such_flow') $$,
  'deleting an unknown flow does not raise');
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 3, "deps": 2, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'nothing else is touched');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: the empty string is not a valid slug
select throws_ok($$ select pgflow.create_flow('') $$, '23514', null,
  'create_flow('''') raises a check violation');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

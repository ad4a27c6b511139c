begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: a slug may not start with a digit
select throws_ok($$ select pgflow.create_flow('1flow') $$, '23514', null,
  'create_flow(''1flow'') raises a check violation');
select throws_ok($$ select pgflow.create_flow('9') $$, '23514', null,
  'create_flow(''9'') raises a check violation');
select throws_like($$ select pgflow.create_flow('1flow') $$, '%1flow%',
  'the error quotes the rejected slug');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

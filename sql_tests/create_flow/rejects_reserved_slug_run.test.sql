begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: run is reserved
select throws_ok($$ select pgflow.create_flow('run') $$, '23514', null,
  'create_flow(''run'') raises a check violation');
select throws_like($$ select pgflow.create_flow('run') $$, '%run%',
  'the error quotes the rejected slug');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

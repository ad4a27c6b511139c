begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: 129 characters exceed the slug limit
select throws_ok(format($$ select pgflow.create_flow(%L) $$, repeat('a', 129)), null::char(5), null,
  'create_flow with a 129-character slug raises');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

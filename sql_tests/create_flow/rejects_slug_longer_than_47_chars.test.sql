begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: 48 characters are a valid slug but too long for a pgmq queue name
select ok(pgflow.is_valid_slug(repeat('f', 48)), 'precondition: a 48-character slug is a valid slug');
select throws_like(format($$ select pgflow.create_flow(%L) $$, repeat('f', 48)),
  '%47%',
  'create_flow rejects a 48-character slug with an error mentioning the 47-character limit');
select throws_like(format($$ select pgflow.create_flow(%L) $$, repeat('f', 128)),
  '%47%',
  'create_flow rejects a 128-character slug with an error mentioning the 47-character limit');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

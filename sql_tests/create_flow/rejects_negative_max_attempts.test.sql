begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: max_attempts must be >= 0
select throws_ok($$ select pgflow.create_flow('neg_flow', max_attempts => -1) $$, '23514', null,
  'max_attempts -1 raises a check violation');
select throws_like($$ select pgflow.create_flow('neg_flow', max_attempts => -1) $$, '%max_attempts%',
  'the error names the max_attempts option');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: timeout must be > 0
select throws_ok($$ select pgflow.create_flow('neg_flow', timeout => 0) $$, '23514', null,
  'timeout 0 raises a check violation');
select throws_ok($$ select pgflow.create_flow('neg_flow', timeout => -5) $$, '23514', null,
  'timeout -5 raises a check violation');
select throws_like($$ select pgflow.create_flow('neg_flow', timeout => 0) $$, '%timeout%',
  'the error names the timeout option');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

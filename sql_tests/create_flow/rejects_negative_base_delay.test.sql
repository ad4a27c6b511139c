begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: base_delay must be >= 0
select throws_ok($$ select pgflow.create_flow('neg_flow', base_delay => -1) $$, '23514', null,
  'base_delay -1 raises a check violation');
select throws_like($$ select pgflow.create_flow('neg_flow', base_delay => -1) $$, '%base_delay%',
  'the error names the base_delay option');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;

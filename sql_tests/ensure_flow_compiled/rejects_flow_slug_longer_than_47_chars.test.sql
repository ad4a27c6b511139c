begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: compilation goes through create_flow, which enforces the pgmq queue-name limit
select throws_like(
  format($$ select pgflow.ensure_flow_compiled(%L, pgflow_tests.shape(pgflow_tests.shape_step('a'))) $$,
         repeat('w', 48)),
  '%47%',
  'a 48-character flow slug raises an error mentioning the 47-character limit');
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'nothing was written');

select * from finish();
rollback;

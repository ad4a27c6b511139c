begin;
select plan(3);

-- SETUP: two flows with runs
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('two_roots');
select pgflow.start_flow('sequential', '{}');
select pgflow.start_flow('two_roots', '{}');

-- TEST: deleting one flow keeps the other complete
select pgflow.delete_flow_and_data('sequential');
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 3, "deps": 2, "runs": 1, "step_states": 3, "step_tasks": 2, "queues": 1}'::jsonb,
  'only the rows of two_roots remain');
select ok(pgflow_tests.queue_exists('two_roots'), 'the other queue is kept');
select is(pgflow_tests.queue_count('two_roots'), 2::bigint, 'the other queue keeps its messages');

select * from finish();
rollback;

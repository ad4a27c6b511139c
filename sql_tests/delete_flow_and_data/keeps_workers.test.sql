begin;
select plan(2);

-- SETUP: a worker of the flow has started a task
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{}');
select pgflow_tests.read_and_start('sequential');

-- TEST: workers are not flow data (they are pruned by heartbeat age)
select pgflow.delete_flow_and_data('sequential');
select is((select count(*)::int from pgflow.workers), 1, 'the worker row is kept');
select is((select count(*)::int from pgflow.step_tasks), 0, 'the task it worked on is gone');

select * from finish();
rollback;

begin;
select plan(4);

-- SETUP: two runs, one task started and one completed
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{"n": 1}');
select pgflow.start_flow('sequential', '{"n": 2}');
select pgflow_tests.poll_and_complete('sequential');
select pgflow_tests.read_and_start('sequential', 30, 5);

-- TEST: precondition
select ok((select count(*) from pgflow.step_tasks) >= 3, 'precondition: the runs have task rows');

-- TEST: every run, step state and task of the flow is deleted
select pgflow.delete_flow_and_data('sequential');
select is((select count(*)::int from pgflow.runs), 0, 'runs of the flow are deleted');
select is((select count(*)::int from pgflow.step_states), 0, 'step states of the flow are deleted');
select is((select count(*)::int from pgflow.step_tasks), 0, 'step tasks of the flow are deleted');

select * from finish();
rollback;

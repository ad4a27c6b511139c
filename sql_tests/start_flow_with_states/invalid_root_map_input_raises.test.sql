begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('root_map');

-- TEST: a root map needs an array input (errors of start_flow are passed through)
select throws_like($$ select pgflow.start_flow_with_states('root_map', '{"not": "an array"}') $$,
  '%not an array%', 'an object input for a root map raises');
select throws_like($$ select pgflow.start_flow_with_states('root_map', null) $$,
  '%NULL%', 'a NULL input for a root map raises');
select is(pgflow_tests.row_counts(), '{"flows": 1, "steps": 1, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb, 'no run, state or task was created');

select * from finish();
rollback;

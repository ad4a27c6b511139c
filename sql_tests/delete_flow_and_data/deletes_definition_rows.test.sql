begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('diamond');

-- TEST
select lives_ok($$ select pgflow.delete_flow_and_data('diamond') $$, 'delete_flow_and_data runs');
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'the flow, its steps, deps and queue are gone');
select is(pgflow._get_flow_shape('diamond'), '{"steps": []}'::jsonb, 'the flow no longer has a shape');

select * from finish();
rollback;

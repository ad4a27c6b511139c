begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'a');

-- TEST: a NULL inside deps_slugs is not a dependency
select throws_ok($$ select pgflow.add_step('flow_a', 'b', array['a', null]) $$, null::char(5), null,
  'a NULL element in deps_slugs raises');
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 1, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;

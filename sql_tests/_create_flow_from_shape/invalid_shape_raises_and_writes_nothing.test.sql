begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: a map step with two dependencies is rejected by add_step; the flow is not half-created
select throws_matching(
  $$ select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(
       pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'),
       pgflow_tests.shape_step('m', 'map', array['a', 'b']))) $$,
  'at most one dependency',
  'a map step with two dependencies raises');
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow, step or queue is left behind');

-- TEST: an unknown dependency and an invalid step slug are rejected too
select throws_ok(
  $$ select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(
       pgflow_tests.shape_step('a', dependencies => array['ghost']))) $$,
  '23503', null,
  'an unknown dependency raises a foreign key violation');
select throws_ok(
  $$ select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(pgflow_tests.shape_step('run'))) $$,
  '23514', null,
  'an invalid step slug raises a check violation');

select * from finish();
rollback;

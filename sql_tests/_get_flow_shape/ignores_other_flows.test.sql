begin;
select plan(1);

-- SETUP: two flows with a step of the same slug
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'shared');
select pgflow.create_flow('flow_b');
select pgflow.add_step('flow_b', 'shared', step_type => 'map');
select pgflow.add_step('flow_b', 'extra', array['shared']);

-- TEST: only the requested flow's steps and edges are described
select is(
  (select jsonb_agg(s ->> 'slug') from jsonb_array_elements(pgflow._get_flow_shape('flow_a') -> 'steps') as s),
  '["shared"]'::jsonb,
  'the shape of flow_a contains only its own step');

select * from finish();
rollback;

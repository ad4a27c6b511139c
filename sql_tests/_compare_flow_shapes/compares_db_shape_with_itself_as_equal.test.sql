begin;
select plan(1);

-- SETUP: a stored flow using every shape feature
select pgflow_tests.reset_db();
select pgflow.create_flow('full');
select pgflow.add_step('full', 'items', step_type => 'map');
select pgflow.add_step('full', 'check', array['items'], required_input_pattern => '{"items": []}',
  when_unmet => 'skip-cascade', when_exhausted => 'skip');
select pgflow.add_step('full', 'done', array['check', 'items'], forbidden_input_pattern => '{"x": 1}');

-- TEST: the worker-side shape of the same definition matches the DB shape
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(
      pgflow_tests.shape_step('items', 'map'),
      pgflow_tests.shape_step('check', 'single', array['items'], 'skip-cascade', 'skip', '{"items": []}', null),
      pgflow_tests.shape_step('done', 'single', array['check', 'items'], 'skip', 'fail', null, '{"x": 1}')),
    pgflow._get_flow_shape('full')),
  '{}'::text[],
  'a worker shape equal to the stored definition has no differences');

select * from finish();
rollback;

begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(
  pgflow_tests.shape_step('items', 'map', options => '{"timeout": 5}'),
  pgflow_tests.shape_step('check', 'single', array['items'], 'fail', 'skip', '{"ok": true}', null),
  pgflow_tests.shape_step('done', 'single', array['items', 'check'], 'skip', 'skip-cascade', null, '{"x": 1}'))
  || '{"options": {"maxAttempts": 2}}');

-- TEST: the stored definition reads back as the same shape (options aside)
select is(
  pgflow._get_flow_shape('from_shape'),
  pgflow_tests.shape(
    pgflow_tests.shape_step('items', 'map'),
    pgflow_tests.shape_step('check', 'single', array['items'], 'fail', 'skip', '{"ok": true}', null),
    pgflow_tests.shape_step('done', 'single', array['check', 'items'], 'skip', 'skip-cascade', null, '{"x": 1}')),
  '_get_flow_shape returns the shape the flow was created from, with sorted dependencies');

select * from finish();
rollback;

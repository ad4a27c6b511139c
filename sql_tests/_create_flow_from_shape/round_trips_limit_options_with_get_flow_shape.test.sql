begin;
select plan(2);

-- SETUP: a flow using every limit option
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('limited', pgflow_tests.shape(
  pgflow_tests.shape_step('fetch', options => '{"maxInFlight": 3}'),
  pgflow_tests.shape_step('each', 'map', array['fetch'], options => '{"maxInFlight": 1}'))
  || '{"options": {"concurrencyLimit": 2, "onLimit": "reject", "runTimeout": 60}}');

-- TEST: the stored shape is upstream's (options are not part of it)
select is(
  pgflow._get_flow_shape('limited'),
  pgflow_tests.shape(pgflow_tests.shape_step('fetch'), pgflow_tests.shape_step('each', 'map', array['fetch'])),
  '_get_flow_shape returns the shape the flow was created from, without options');

-- TEST: compared with the shape it was built from, there is no difference
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(
      pgflow_tests.shape_step('fetch', options => '{"maxInFlight": 3}'),
      pgflow_tests.shape_step('each', 'map', array['fetch'], options => '{"maxInFlight": 1}'))
      || '{"options": {"concurrencyLimit": 2, "onLimit": "reject", "runTimeout": 60}}',
    pgflow._get_flow_shape('limited')),
  '{}'::text[],
  'the source shape and the stored one compare equal');

select * from finish();
rollback;

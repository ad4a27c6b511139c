begin;
select plan(6);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('limited', pgflow_tests.shape(
  pgflow_tests.shape_step('fetch', options => '{"maxInFlight": 3, "timeout": 5}'),
  pgflow_tests.shape_step('each', 'map', array['fetch'], options => '{"maxInFlight": 1}'),
  pgflow_tests.shape_step('done', 'single', array['each']))
  || '{"options": {"concurrencyLimit": 2, "onLimit": "reject", "runTimeout": 3600}}');

-- TEST: concurrencyLimit, onLimit, runTimeout go to create_flow, maxInFlight to add_step
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = 'limited' $$,
  $$ values (2, 'reject'::text, 3600) $$,
  'the flow options of the shape are stored');
select results_eq(
  $$ select step_slug, opt_max_in_flight, opt_timeout from pgflow.steps where flow_slug = 'limited' order by step_index $$,
  $$ values ('fetch'::text, 3, 5), ('each', 1, null::int), ('done', null, null) $$,
  'each step''s maxInFlight is stored, NULL when missing');

-- TEST: missing (or JSON null) options are the defaults: no limit, queue, no run timeout
select pgflow._create_flow_from_shape('plain', pgflow_tests.shape(pgflow_tests.shape_step('a'))
  || '{"options": {"concurrencyLimit": null, "onLimit": null}}');
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = 'plain' $$,
  $$ values (null::int, 'queue'::text, null::int) $$,
  'missing and null options are the defaults');

-- TEST: an invalid value raises and leaves no part of the flow
select throws_ok(
  $$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(pgflow_tests.shape_step('a'))
       || '{"options": {"onLimit": "drop"}}') $$,
  '23514', 'Invalid on_limit ''drop'' for flow ''bad'' (expected queue or reject)',
  'an invalid onLimit raises');
select throws_ok(
  $$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
       pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b', options => '{"maxInFlight": 0}'))) $$,
  '23514', 'Option max_in_flight must be >= 1 (got 0)',
  'maxInFlight 0 raises');
select is((select count(*)::int from pgflow.flows where flow_slug = 'bad'), 0,
  'no flow bad was created');

select * from finish();
rollback;

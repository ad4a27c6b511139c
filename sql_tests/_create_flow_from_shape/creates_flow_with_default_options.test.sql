begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(pgflow_tests.shape_step('only')));

-- TEST: a shape without options gets the create_flow defaults 3 / 5 / 60
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'from_shape' $$,
  $$ values (3, 5, 60) $$,
  'missing flow options become 3 / 5 / 60');
select ok(pgflow_tests.queue_exists('from_shape'), 'the flow queue is created');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay from pgflow.steps where step_slug = 'only' $$,
  $$ values (null::int, null::int, null::int, null::int) $$,
  'missing step options stay NULL (inherit)');

select * from finish();
rollback;

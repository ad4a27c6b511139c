begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(
  pgflow_tests.shape_step('slow', options => '{"maxAttempts": 2, "baseDelay": 3, "timeout": 40, "startDelay": 12}'),
  pgflow_tests.shape_step('partial', options => '{"timeout": 5}')));

-- TEST
select results_eq(
  $$ select step_slug, opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay
     from pgflow.steps where flow_slug = 'from_shape' order by step_index $$,
  $$ values ('slow'::text, 2, 3, 40, 12), ('partial', null, null, 5, null) $$,
  'maxAttempts, baseDelay, timeout and startDelay are stored; missing ones stay NULL');

select * from finish();
rollback;

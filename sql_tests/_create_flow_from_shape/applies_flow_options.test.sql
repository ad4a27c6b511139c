begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape',
  '{"steps": [], "options": {"maxAttempts": 4, "baseDelay": 2, "timeout": 15}}');

-- TEST
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'from_shape' $$,
  $$ values (4, 2, 15) $$,
  'maxAttempts, baseDelay and timeout of the shape are passed to create_flow');

select * from finish();
rollback;

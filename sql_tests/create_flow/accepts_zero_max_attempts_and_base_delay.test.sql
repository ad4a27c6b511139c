begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: 0 is allowed for max_attempts and base_delay at SQL level (timeout must be positive)
select lives_ok(
  $$ select pgflow.create_flow('zero_flow', max_attempts => 0, base_delay => 0, timeout => 1) $$,
  'max_attempts 0, base_delay 0 and timeout 1 are accepted');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'zero_flow' $$,
  $$ values (0, 0, 1) $$,
  'the boundary values are stored as given');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');

-- TEST: 0 is allowed for max_attempts, base_delay and start_delay; 1 for timeout
select lives_ok(
  $$ select pgflow.add_step('flow_a', 'zero', max_attempts => 0, base_delay => 0, timeout => 1, start_delay => 0) $$,
  'boundary options 0 / 0 / 1 / 0 are accepted');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay
     from pgflow.steps where step_slug = 'zero' $$,
  $$ values (0, 0, 1, 0) $$,
  'the boundary values are stored as given');

select * from finish();
rollback;

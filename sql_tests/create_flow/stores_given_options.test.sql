begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: named arguments flow_slug, max_attempts, base_delay, timeout
select lives_ok(
  $$ select pgflow.create_flow(flow_slug => 'opts_flow', max_attempts => 7, base_delay => 2, timeout => 30) $$,
  'create_flow accepts its documented named arguments');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'opts_flow' $$,
  $$ values (7, 2, 30) $$,
  'the given options are stored');

select * from finish();
rollback;

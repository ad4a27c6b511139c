begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('same_flow', max_attempts => 2, base_delay => 3, timeout => 4);

-- TEST: a second call with other options returns the existing row and updates nothing
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout
     from pgflow.create_flow('same_flow', max_attempts => 9, base_delay => 9, timeout => 9) $$,
  $$ values (2, 3, 4) $$,
  'the second call returns the existing options');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'same_flow' $$,
  $$ values (2, 3, 4) $$,
  'the stored options are not updated');
select is((select count(*)::int from pgflow.flows where flow_slug = 'same_flow'), 1,
  'there is still exactly one flow row');

select * from finish();
rollback;

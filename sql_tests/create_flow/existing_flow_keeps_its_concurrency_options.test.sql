begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('billing', concurrency_limit => 1, on_limit => 'reject', run_timeout => 60);

-- TEST: a repeated call with other options returns the stored row unchanged
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout
     from pgflow.create_flow('billing', concurrency_limit => 9, on_limit => 'queue', run_timeout => 99) $$,
  $$ values (1, 'reject'::text, 60) $$,
  'the existing row is returned as it was');
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = 'billing' $$,
  $$ values (1, 'reject'::text, 60) $$,
  'the stored options are not updated');

-- TEST: a repeated call without them does not reset them either
select pgflow.create_flow('billing');
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = 'billing' $$,
  $$ values (1, 'reject'::text, 60) $$,
  'a call without the options keeps them');

select * from finish();
rollback;

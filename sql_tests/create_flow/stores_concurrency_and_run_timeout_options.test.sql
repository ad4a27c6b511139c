begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: named arguments concurrency_limit, on_limit, run_timeout are stored
select lives_ok(
  $$ select pgflow.create_flow(flow_slug => 'billing', concurrency_limit => 2, on_limit => 'reject', run_timeout => 3600) $$,
  'create_flow accepts concurrency_limit, on_limit and run_timeout');
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = 'billing' $$,
  $$ values (2, 'reject'::text, 3600) $$,
  'the given options are stored');

-- TEST: left out (or NULL), they are no limit, queue and no run timeout
select pgflow.create_flow('plain');
select pgflow.create_flow('nulls', concurrency_limit => null, on_limit => null, run_timeout => null);
select results_eq(
  $$ select flow_slug, opt_concurrency_limit, opt_on_limit, opt_run_timeout, opt_max_attempts, opt_base_delay, opt_timeout
     from pgflow.flows where flow_slug in ('plain', 'nulls') order by flow_slug $$,
  $$ values ('nulls'::text, null::int, 'queue'::text, null::int, 3, 5, 60),
            ('plain', null, 'queue', null, 3, 5, 60) $$,
  'NULL and missing mean no limit, on_limit queue, no run timeout (other defaults unchanged)');

-- TEST: the upstream positional form still works and leaves the new options at their defaults
select lives_ok(
  $$ select pgflow.create_flow('positional', 4, 1, 30) $$,
  'the 4-argument positional call still works');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout, opt_concurrency_limit, opt_on_limit, opt_run_timeout
     from pgflow.flows where flow_slug = 'positional' $$,
  $$ values (4, 1, 30, null::int, 'queue'::text, null::int) $$,
  'upstream''s arguments are stored, the new ones are the defaults');

select * from finish();
rollback;

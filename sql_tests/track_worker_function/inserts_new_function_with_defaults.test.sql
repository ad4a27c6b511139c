begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.track_worker_function('my-edge-function');

-- TEST
select is((select count(*)::int from pgflow.worker_functions), 1, 'one worker_functions row is inserted');
select results_eq(
  $$ select function_name, enabled, debounce, last_invoked_at from pgflow.worker_functions $$,
  $$ values ('my-edge-function'::text, true, '6 seconds'::interval, null::timestamptz) $$,
  'the row is enabled, with a 6 second debounce and never invoked');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP: an operator disabled the function; it was invoked before
select pgflow_tests.reset_db();
select pgflow.track_worker_function('fn');
update pgflow.worker_functions
set enabled = false, debounce = '30 seconds', last_invoked_at = now() - interval '1 minute',
    updated_at = now() - interval '1 hour'
where function_name = 'fn';

-- TEST: a worker start refreshes updated_at with clock time and keeps everything else
select pgflow.track_worker_function('fn');
select is((select count(*)::int from pgflow.worker_functions), 1, 'still one row (upsert)');
select ok((select updated_at >= now() from pgflow.worker_functions where function_name = 'fn'),
  'updated_at is refreshed to the current clock time');
select results_eq(
  $$ select enabled, debounce, last_invoked_at from pgflow.worker_functions where function_name = 'fn' $$,
  $$ values (false, '30 seconds'::interval, now() - interval '1 minute') $$,
  'enabled, debounce and last_invoked_at are not reset');

select * from finish();
rollback;

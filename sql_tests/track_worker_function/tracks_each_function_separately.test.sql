begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.track_worker_function('a');
select pgflow.track_worker_function('b');
select pgflow.track_worker_function('a');

-- TEST
select results_eq(
  $$ select function_name from pgflow.worker_functions order by function_name $$,
  $$ values ('a'::text), ('b') $$,
  'one row per function name');

select * from finish();
rollback;

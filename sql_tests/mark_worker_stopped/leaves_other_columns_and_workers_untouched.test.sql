begin;
select plan(3);

-- SETUP: two workers
select pgflow_tests.reset_db();
select pgflow_tests.ensure_worker('q', '22222222-2222-2222-2222-222222222222');
select pgflow_tests.ensure_worker('q', '33333333-3333-3333-3333-333333333333');
create temp table before as select * from pgflow.workers;

-- TEST
select pgflow.mark_worker_stopped('22222222-2222-2222-2222-222222222222');
select is((select deprecated_at from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'),
  null, 'deprecated_at is not set (stopping is not deprecation)');
select results_eq(
  $$ select worker_id, queue_name, function_name, started_at, last_heartbeat_at from pgflow.workers order by worker_id $$,
  $$ select worker_id, queue_name, function_name, started_at, last_heartbeat_at from before order by worker_id $$,
  'the other columns are unchanged');
select is((select stopped_at from pgflow.workers where worker_id = '33333333-3333-3333-3333-333333333333'),
  null, 'the other worker is not stopped');

select * from finish();
rollback;

begin;
select plan(4);

-- TEST: register_worker inserts the row and returns it
select is(
  (pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'my_flow', 'my_fn')).queue_name,
  'my_flow',
  'returns the workers row');
select is(
  (select count(*)::int from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'),
  1, 'one row is inserted');
select is(
  (select function_name from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'),
  'my_fn', 'function_name is stored');
select ok(
  (select deprecated_at is null and stopped_at is null and last_heartbeat_at is not null
   from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'),
  'a new worker is alive: not deprecated, not stopped, heartbeat set');

select * from finish();
rollback;

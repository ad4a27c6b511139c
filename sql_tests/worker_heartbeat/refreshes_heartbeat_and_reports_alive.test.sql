begin;
select plan(2);

-- SETUP: a worker whose heartbeat is old
select pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'my_flow', 'my_fn');
update pgflow.workers set last_heartbeat_at = now() - interval '1 hour';

-- TEST: the heartbeat returns false (keep reading) and refreshes last_heartbeat_at
select is(pgflow.worker_heartbeat('22222222-2222-2222-2222-222222222222'), false,
  'an alive worker is told to go on');
select ok(
  (select last_heartbeat_at > now() - interval '1 minute' from pgflow.workers),
  'last_heartbeat_at is refreshed');

select * from finish();
rollback;

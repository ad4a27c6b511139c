begin;
select plan(2);

-- SETUP: a worker registered once (identity is per process boot: a restarted process that
-- reuses a deployment name never inherits a dead process's row)
select pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'my_flow', 'my_fn');

-- TEST: registering the same id again raises and writes nothing
select throws_ok(
  $$ select pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'other', 'other_fn') $$,
  '23505',
  'Worker 22222222-2222-2222-2222-222222222222 is already registered',
  'a reused worker_id is rejected with a clear error');
select is(
  (select queue_name from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'),
  'my_flow', 'the existing row is unchanged');

select * from finish();
rollback;

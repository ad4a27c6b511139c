begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.ensure_flow_compiled('locked_flow', pgflow_tests.shape(pgflow_tests.shape_step('a')));

-- TEST: pg_advisory_xact_lock(1, hashtext(flow_slug)) is held until the transaction ends
select ok(
  exists (
    select 1 from pg_locks as l
    where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.granted
      and l.classid = 1::oid
      and l.objid::bigint = (hashtext('locked_flow')::bigint + 4294967296) % 4294967296
      and l.objsubid = 2),
  'this transaction holds the advisory lock (1, hashtext(flow_slug))');
set local client_min_messages = error;
select is(pg_advisory_unlock(1, hashtext('locked_flow')), false,
  'the lock is transaction-scoped: there is no session-level lock to release');

select * from finish();
rollback;

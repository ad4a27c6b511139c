begin;
select plan(7);
select pgflow_tests.reset_db();

-- The advisory locks this transaction holds in the concurrency-key space, as pg_locks shows
-- a two-int4 key (classid, objid as oids): the objid values, sorted.
create function pg_temp.key_locks() returns bigint[] language sql as $$
  select coalesce(array_agg(l.objid::bigint order by l.objid::bigint), '{}')
  from pg_locks as l
  where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.granted and l.objsubid = 2
    and l.classid::bigint = (hashtext('pgflow.concurrency_key')::bigint & 4294967295)
$$;
-- The objid pg_locks shows for flow/key.
create function pg_temp.objid(flow_slug text, concurrency_key text) returns bigint language sql as $$
  select hashtext(flow_slug || '/' || concurrency_key)::bigint & 4294967295
$$;

-- TEST: before any call, no such lock
select is(pg_temp.key_locks(), '{}'::bigint[], 'no concurrency-key lock at first');

-- TEST: the call takes the advisory lock (hashtext('pgflow.concurrency_key'), hashtext(flow/key))
select lives_ok($$select pgflow._lock_concurrency_key('orders', 'tenant-a')$$, 'the call returns');
select is(pg_temp.key_locks(), array[pg_temp.objid('orders', 'tenant-a')], 'the lock of orders/tenant-a is held');
select is(
  (select mode from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and objsubid = 2
     and objid::bigint = pg_temp.objid('orders', 'tenant-a')),
  'ExclusiveLock', 'an exclusive lock');

-- TEST: re-entrant: a second call in the same transaction returns at once and holds the same lock
select lives_ok($$select pgflow._lock_concurrency_key('orders', 'tenant-a')$$, 'a second call does not block');
select is(pg_temp.key_locks(), array[pg_temp.objid('orders', 'tenant-a')], 'still that one lock');

-- TEST: another key of the flow, and the same key of another flow, are other locks
select pgflow._lock_concurrency_key('orders', 'tenant-b');
select pgflow._lock_concurrency_key('invoices', 'tenant-a');
select is(pg_temp.key_locks(),
  (select array_agg(o order by o) from unnest(array[pg_temp.objid('orders', 'tenant-a'),
     pg_temp.objid('orders', 'tenant-b'), pg_temp.objid('invoices', 'tenant-a')]) as o),
  'three distinct locks: orders/tenant-a, orders/tenant-b, invoices/tenant-a');

select * from finish();
rollback;

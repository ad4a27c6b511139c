begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: flow lim (concurrency_limit 1) and flow free (no limit); no run
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.limited_flow('free', null);
create function pg_temp.flow(slug text) returns pgflow.flows language sql as
  $$select f from pgflow.flows as f where f.flow_slug = slug$$;
-- The concurrency-key locks this transaction holds, as "flow/key" objids (pg_locks shows a
-- two-int4 advisory key as classid, objid).
create function pg_temp.holds_key_lock(flow_slug text, concurrency_key text) returns boolean language sql as $$
  select exists (
    select 1 from pg_locks as l
    where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.granted and l.objsubid = 2
      and l.classid::bigint = (hashtext('pgflow.concurrency_key')::bigint & 4294967295)
      and l.objid::bigint = (hashtext(flow_slug || '/' || concurrency_key)::bigint & 4294967295))
$$;
create function pg_temp.key_lock_count() returns int language sql as $$
  select count(*)::int from pg_locks as l
  where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.objsubid = 2
    and l.classid::bigint = (hashtext('pgflow.concurrency_key')::bigint & 4294967295)
$$;

-- TEST: no concurrency key, or a flow without limit: no lock (and no run found)
select is(pgflow._find_keyed_start(pg_temp.flow('lim'), 'K', null), null::uuid, 'lim without concurrency key: NULL');
select is(pgflow._find_keyed_start(pg_temp.flow('free'), 'K', 'ck'), null::uuid, 'free with concurrency key: NULL');
select is(pg_temp.key_lock_count(), 0, 'neither call took a concurrency-key lock');

-- TEST: a concurrency key of a limited flow: its lock is taken and kept after the call
select is(pgflow._find_keyed_start(pg_temp.flow('lim'), 'K', 'ck'), null::uuid, 'lim with concurrency key ck: NULL');
select ok(pg_temp.holds_key_lock('lim', 'ck') and pg_temp.key_lock_count() = 1,
  'the lock of lim/ck is held, and only it');

select * from finish();
rollback;

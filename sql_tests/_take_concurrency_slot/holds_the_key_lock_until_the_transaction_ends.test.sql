begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: flow lim (limit 1) and flow free (no limit)
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.limited_flow('free', null);
-- The advisory lock of flow/key, as pg_locks shows a two-int4 key (classid, objid as oids).
create function pg_temp.holds_key_lock(flow_slug text, concurrency_key text) returns boolean language sql as $$
  select exists (
    select 1 from pg_locks as l
    where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.granted and l.objsubid = 2
      and l.classid::bigint = (hashtext('pgflow.concurrency_key')::bigint & 4294967295)
      and l.objid::bigint = (hashtext(flow_slug || '/' || concurrency_key)::bigint & 4294967295))
$$;

-- TEST: a start of a limited key takes the key's advisory lock and keeps it after returning
select is(pg_temp.holds_key_lock('lim', 'ck'), false, 'before: no lock on lim/ck');
select pgflow_tests.keyed_run('lim', 'ck');
select is(pg_temp.holds_key_lock('lim', 'ck'), true, 'after a start of lim/ck, this transaction holds its lock');

-- TEST: no lock is taken where no slot is counted (no limit, or no key)
select pgflow_tests.keyed_run('free', 'ck');
select is(pg_temp.holds_key_lock('free', 'ck'), false, 'a key of a flow without limit takes no lock');
select is(
  (select count(*)::int from pg_locks
   where locktype = 'advisory' and pid = pg_backend_pid() and objsubid = 2
     and classid::bigint = (hashtext('pgflow.concurrency_key')::bigint & 4294967295)),
  1,
  'of the concurrency key locks, only lim/ck''s is held'
);

select * from finish();
rollback;

begin;
select plan(8);
select pgflow_tests.reset_db();
-- Two more sessions through dblink (this one only looks). The lock needs no row, so nothing
-- is committed and nothing needs cleaning up.
create extension if not exists dblink;
select dblink_connect('key_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=key_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('key_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=key_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('key_a', 'set statement_timeout = 20000');
select dblink_exec('key_b', 'set statement_timeout = 20000');

-- Waits until session key_b is blocked on an advisory lock (a session state, not time).
create function pg_temp.b_waits_for_a_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity where application_name = 'key_b'
               and wait_event_type = 'Lock' and wait_event = 'advisory') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- TEST: A holds orders/tenant-a in an open transaction; B's call for the same key waits
-- until A commits
select dblink_exec('key_a', 'begin');
select * from dblink('key_a', $$select pgflow._lock_concurrency_key('orders', 'tenant-a')::text$$) as t (r text);
select dblink_send_query('key_b', $$select pgflow._lock_concurrency_key('orders', 'tenant-a')::text$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B waits for the lock A holds');
select is(dblink_is_busy('key_b'), 1, 'B has not returned while A is open');
select dblink_exec('key_a', 'commit');
select is((select count(*)::int from dblink_get_result('key_b') as t (r text)), 1, 'after A commits, B gets the lock and returns');
select dblink_get_result('key_b');  -- (end of B's result set)

-- TEST: the lock lasts until the end of B's transaction only (B ran in autocommit): A takes it
-- again at once
select is((select r from dblink('key_a', $$select pg_try_advisory_xact_lock(hashtext('pgflow.concurrency_key'),
  hashtext('orders/tenant-a'))$$) as t (r boolean)), true, 'the lock is free once B''s transaction ended');

-- TEST: a rollback releases it too
select dblink_exec('key_a', 'begin');
select * from dblink('key_a', $$select pgflow._lock_concurrency_key('orders', 'tenant-a')::text$$) as t (r text);
select dblink_send_query('key_b', $$select pgflow._lock_concurrency_key('orders', 'tenant-a')::text$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B waits again while A holds the lock');
select dblink_exec('key_a', 'rollback');
select is((select count(*)::int from dblink_get_result('key_b') as t (r text)), 1, 'after A rolls back, B returns');
select dblink_get_result('key_b');

-- TEST: other keys are not held up by A's lock
select dblink_exec('key_a', 'begin');
select * from dblink('key_a', $$select pgflow._lock_concurrency_key('orders', 'tenant-a')::text$$) as t (r text);
select dblink_exec('key_b', 'set lock_timeout = 2000');
select lives_ok($$select * from dblink('key_b', 'select pgflow._lock_concurrency_key(''orders'', ''tenant-b'')::text') as t (r text)$$,
  'another key of the same flow is taken at once');
select lives_ok($$select * from dblink('key_b', 'select pgflow._lock_concurrency_key(''invoices'', ''tenant-a'')::text') as t (r text)$$,
  'the same key of another flow is taken at once');
select dblink_exec('key_a', 'rollback');

select dblink_disconnect('key_a');
select dblink_disconnect('key_b');

select * from finish();
rollback;

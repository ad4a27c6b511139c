begin;
select plan(5);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- flow must be committed for both to see it, and the end deletes it.
create extension if not exists dblink;
select dblink_connect('def_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=def_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('def_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=def_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('def_a', 'set statement_timeout = 20000');
select dblink_exec('def_b', 'set statement_timeout = 20000');

-- Waits until session def_b is blocked on a lock (a session state, not time).
create function pg_temp.b_waits_for_a_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity where application_name = 'def_b' and wait_event_type = 'Lock') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- SETUP (committed): flow lockdef with steps first and second
select dblink_exec('def_a', $o$do $x$ begin
  perform pgflow.create_flow('lockdef');
  perform pgflow.add_step('lockdef', 'first');
  perform pgflow.add_step('lockdef', 'second');
end $x$ $o$);

-- TEST: while A's transaction holds the definition lock of lockdef (for step first), B's
-- definition of another step of the same flow waits
select dblink_exec('def_a', 'begin');
select * from dblink('def_a', $$select (pgflow._lock_step_definition('add_wait', 'lockdef', 'first')).step_slug$$)
  as t (step_slug text);
select dblink_send_query('def_b', $$select (pgflow.add_wait('lockdef', 'second', 'go')).signal_name$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B''s add_wait on another step of the flow waits for A');
select is(
  (select count(*)::int from pg_locks as l join pg_stat_activity as a on a.pid = l.pid
   where a.application_name = 'def_b' and not l.granted and l.locktype = 'transactionid'),
  1, 'B waits on A''s transaction (the flows row it locked)');
select is(dblink_is_busy('def_b'), 1, 'B has not returned while A is open');

-- TEST: when A's transaction ends, B goes on
select dblink_exec('def_a', 'rollback');
select is((select signal_name from dblink_get_result('def_b') as t (signal_name text)), 'go',
  'after A ends, B stores its wait');
select dblink_get_result('def_b');  -- (end of B's result set)

-- TEST: the lock is the flows row's: A reading the step without the function does not block B
select dblink_exec('def_a', 'begin');
select * from dblink('def_a', $$select step_slug from pgflow.steps where flow_slug = 'lockdef' and step_slug = 'first'$$)
  as t (step_slug text);
select dblink_exec('def_b', 'set lock_timeout = 2000');
select lives_ok($$select * from dblink('def_b', 'select 1 from pgflow.flows where flow_slug = ''lockdef'' for update') as t (x int)$$,
  'B can lock the flows row while A only read the step');
select dblink_exec('def_a', 'rollback');

-- CLEANUP: the committed rows go
select dblink_exec('def_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('lockdef'); end $x$ $o$);
select dblink_disconnect('def_a');
select dblink_disconnect('def_b');

select * from finish();
rollback;

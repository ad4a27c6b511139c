begin;
select plan(5);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both racers commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('dup_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=dup_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('dup_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=dup_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('dup_a', 'set statement_timeout = 20000');
select dblink_exec('dup_b', 'set statement_timeout = 20000');

-- Waits until session dup_b is blocked on a lock (a session state, not time).
create function pg_temp.b_waits_for_a_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity where application_name = 'dup_b' and wait_event_type = 'Lock') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- SETUP (committed): flow race14d, at most 1 run per key, on_limit reject
select dblink_exec('dup_a', $o$do $x$ begin
  perform pgflow.create_flow('race14d', concurrency_limit => 1, on_limit => 'reject');
  perform pgflow.add_step('race14d', 'work');
end $x$ $o$);

-- TEST: A starts with idempotency key K and concurrency key ck in an open transaction (it
-- takes the only slot); B repeats the very same call and waits; A commits. B's call is a
-- concurrent duplicate of A's: it must return A's run with duplicate true (start_flow's
-- contract: "every later or concurrent one returns that run ... with duplicate true"), not
-- be refused for the slot A's own run holds.
select dblink_exec('dup_a', 'begin');
select run_id as a_run from dblink('dup_a',
  $$select run_id from pgflow.start_flow('race14d', '{}', idempotency_key => 'K', concurrency_key => 'ck')$$)
  as t (run_id uuid) \gset
select dblink_send_query('dup_b',
  $$select run_id, duplicate from pgflow.start_flow('race14d', '{}', idempotency_key => 'K', concurrency_key => 'ck')$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B''s identical start waits for A');
select dblink_exec('dup_a', 'commit');
-- B's outcome, error or not, as (run_id, duplicate, error: SQLSTATE and message)
create temp table b_outcome (run_id uuid, duplicate boolean, error text);
do $$
begin
  insert into b_outcome select t.run_id, t.duplicate, null
  from dblink_get_result('dup_b') as t (run_id uuid, duplicate boolean);
exception when others then
  insert into b_outcome values (null, null, sqlstate || ' ' || sqlerrm);
end
$$;
select dblink_get_result('dup_b', false);
select is((select error from b_outcome), null, 'B did not raise');
select results_eq(
  $$select run_id, duplicate from b_outcome$$,
  format($$values (%L::uuid, true)$$, :'a_run'),
  'B returns A''s run with duplicate true'
);
select is(
  (select count(*)::int from pgflow.runs where flow_slug = 'race14d'),
  1,
  'one run exists'
);
select is(
  (select count(*)::int from pgflow.runs where flow_slug = 'race14d' and idempotency_key = 'K' and status = 'started'),
  1,
  'it is A''s run, started'
);

-- CLEANUP: the committed rows go
select dblink_exec('dup_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('race14d'); end $x$ $o$);
select dblink_disconnect('dup_a');
select dblink_disconnect('dup_b');

select * from finish();
rollback;

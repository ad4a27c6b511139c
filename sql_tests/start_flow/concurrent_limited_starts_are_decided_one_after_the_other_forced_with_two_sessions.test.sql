begin;
select plan(9);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both racers commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('slot_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=slot_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('slot_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=slot_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('slot_a', 'set statement_timeout = 20000');
select dblink_exec('slot_b', 'set statement_timeout = 20000');

-- Waits until session slot_b is blocked on an advisory lock (a session state, not time).
create function pg_temp.b_waits_for_the_key_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity
               where application_name = 'slot_b' and wait_event_type = 'Lock' and wait_event = 'advisory') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- SETUP (committed): flow race14c, at most 1 run per key, on_limit queue
select dblink_exec('slot_a', $o$do $x$ begin
  perform pgflow.create_flow('race14c', concurrency_limit => 1, on_limit => 'queue');
  perform pgflow.add_step('race14c', 'work');
end $x$ $o$);

-- TEST: A starts key ck in an open transaction (it takes the slot); B's start of ck waits on
-- the key's lock; A commits; B counts A's run and queues
select dblink_exec('slot_a', 'begin');
select results_eq(
  $$select * from dblink('slot_a', 'select status from pgflow.start_flow(''race14c'', ''{}'', concurrency_key => ''ck'')')
    as t (status text)$$,
  $$values ('started'::text)$$,
  'A''s start (not committed yet) takes the slot'
);
select dblink_send_query('slot_b',
  $$select run_id, status from pgflow.start_flow('race14c', '{}', concurrency_key => 'ck')$$);
select ok(pg_temp.b_waits_for_the_key_lock(), 'B''s start of the same key waits on the key''s advisory lock');
select is(dblink_is_busy('slot_b'), 1, 'B has not returned while A is open');
select dblink_exec('slot_a', 'commit');
select run_id as b_run, status as b_status
from dblink_get_result('slot_b') as t (run_id uuid, status text) \gset
select dblink_get_result('slot_b');
select is(:'b_status'::text, 'queued', 'after A commits, B''s run is queued behind it');
select results_eq(
  $$select status, count(*)::int from pgflow.runs where flow_slug = 'race14c' group by status order by status$$,
  $$values ('queued'::text, 1), ('started', 1)$$,
  'one run holds the slot, one waits: the limit was never exceeded'
);

-- TEST: the variant where A rolls back: B then takes the slot
-- (on a fresh key, ck2, that no run holds)
select dblink_exec('slot_a', 'begin');
select results_eq(
  $$select * from dblink('slot_a', 'select status from pgflow.start_flow(''race14c'', ''{}'', concurrency_key => ''ck2'')')
    as t (status text)$$,
  $$values ('started'::text)$$,
  'A''s start of ck2 (not committed) takes the slot'
);
select dblink_send_query('slot_b',
  $$select run_id, status from pgflow.start_flow('race14c', '{}', concurrency_key => 'ck2')$$);
select ok(pg_temp.b_waits_for_the_key_lock(), 'B''s start of ck2 waits on the key''s advisory lock');
select dblink_exec('slot_a', 'rollback');
select run_id as b_run2, status as b_status2
from dblink_get_result('slot_b') as t (run_id uuid, status text) \gset
select dblink_get_result('slot_b');
select is(:'b_status2'::text, 'started', 'after A rolls back, B''s run takes the slot and starts');
select results_eq(
  $$select run_id, status from pgflow.runs where flow_slug = 'race14c' and concurrency_key = 'ck2'$$,
  format($$values (%L::uuid, 'started'::text)$$, :'b_run2'),
  'B''s run is the only run of ck2'
);

-- CLEANUP: the committed rows go
select dblink_exec('slot_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('race14c'); end $x$ $o$);
select dblink_disconnect('slot_a');
select dblink_disconnect('slot_b');

select * from finish();
rollback;

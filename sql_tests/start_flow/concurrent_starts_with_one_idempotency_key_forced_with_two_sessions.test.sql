begin;
select plan(10);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both racers commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('idem_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=idem_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('idem_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=idem_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('idem_a', 'set statement_timeout = 20000');
select dblink_exec('idem_b', 'set statement_timeout = 20000');

-- Waits until session idem_b is blocked on a lock (a session state, not time); true if it is.
create function pg_temp.b_waits_for_a_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity where application_name = 'idem_b' and wait_event_type = 'Lock') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- SETUP (committed): flow race14i with one root step
select dblink_exec('idem_a', $o$do $x$ begin
  perform pgflow.create_flow('race14i');
  perform pgflow.add_step('race14i', 'work');
end $x$ $o$);

-- TEST: A starts with key K in an open transaction; B's start with K waits for A; A commits;
-- B returns A's run with duplicate true, and only one run exists
select dblink_exec('idem_a', 'begin');
select run_id as a_run from dblink('idem_a',
  $$select run_id from pgflow.start_flow('race14i', '{"by": "a"}', idempotency_key => 'K')$$) as t (run_id uuid) \gset
select dblink_send_query('idem_b',
  $$select run_id, duplicate from pgflow.start_flow('race14i', '{"by": "b"}', idempotency_key => 'K')$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B''s start with K waits for A''s uncommitted start');
select is(dblink_is_busy('idem_b'), 1, 'B has not returned while A is open');
select dblink_exec('idem_a', 'commit');
select results_eq(
  $$select * from dblink_get_result('idem_b') as t (run_id uuid, duplicate boolean)$$,
  format($$values (%L::uuid, true)$$, :'a_run'),
  'after A commits, B returns A''s run with duplicate true'
);
select dblink_get_result('idem_b');  -- (end of B's result set)
select results_eq(
  $$select input, (select count(*)::int from pgflow.step_tasks as t where t.run_id = r.run_id)
    from pgflow.runs as r where r.flow_slug = 'race14i' and r.idempotency_key = 'K'$$,
  $$values ('{"by": "a"}'::jsonb, 1)$$,
  'one run with key K: A''s input, one root task'
);
select is(
  (select count(*)::int from pgflow.run_events as e join pgflow.runs as r using (run_id)
   where r.idempotency_key = 'K' and e.event = 'run:started'),
  1,
  'one run:started is recorded'
);

-- TEST: A starts with key K2 and rolls back; B, which waited, then creates the run
select dblink_exec('idem_a', 'begin');
select run_id as a_run2 from dblink('idem_a',
  $$select run_id from pgflow.start_flow('race14i', '{"by": "a"}', idempotency_key => 'K2')$$) as t (run_id uuid) \gset
select dblink_send_query('idem_b',
  $$select run_id, duplicate from pgflow.start_flow('race14i', '{"by": "b"}', idempotency_key => 'K2')$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B''s start with K2 waits for A''s uncommitted start');
select dblink_exec('idem_a', 'rollback');
select run_id as b_run2, duplicate as b_duplicate2
from dblink_get_result('idem_b') as t (run_id uuid, duplicate boolean) \gset
select dblink_get_result('idem_b');
select is(:'b_duplicate2'::boolean, false, 'after A rolls back, B creates the run (duplicate false)');
select isnt(:'b_run2'::uuid, :'a_run2'::uuid, 'B''s run is not the run A rolled back');
select results_eq(
  $$select run_id, input, status from pgflow.runs where flow_slug = 'race14i' and idempotency_key = 'K2'$$,
  format($$values (%L::uuid, '{"by": "b"}'::jsonb, 'started'::text)$$, :'b_run2'),
  'the one run with key K2 is B''s, started'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t where t.run_id = :'b_run2'),
  1,
  'B''s run has its root task'
);

-- CLEANUP: the committed rows go
select dblink_exec('idem_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('race14i'); end $x$ $o$);
select dblink_disconnect('idem_a');
select dblink_disconnect('idem_b');

select * from finish();
rollback;

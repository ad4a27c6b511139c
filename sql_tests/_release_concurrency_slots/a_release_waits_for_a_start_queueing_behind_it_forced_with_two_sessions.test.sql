begin;
select plan(6);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both racers commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('rel_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=rel_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('rel_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=rel_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('rel_a', 'set statement_timeout = 20000');
select dblink_exec('rel_b', 'set statement_timeout = 20000');

-- Waits until session rel_b is blocked on an advisory lock (a session state, not time).
create function pg_temp.b_waits_for_the_key_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity
               where application_name = 'rel_b' and wait_event_type = 'Lock' and wait_event = 'advisory') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- SETUP (committed): flow race14r, at most 1 run per key, on_limit queue; a holder of ck
select dblink_exec('rel_a', $o$do $x$ begin
  perform pgflow.create_flow('race14r', concurrency_limit => 1, on_limit => 'queue');
  perform pgflow.add_step('race14r', 'work');
end $x$ $o$);
select run_id as holder from dblink('rel_a',
  $$select run_id from pgflow.start_flow('race14r', '{}', concurrency_key => 'ck')$$) as t (run_id uuid) \gset

-- TEST: A starts ck in an open transaction and is queued behind the holder; B completes the
-- holder: its release waits on the key's lock (although no queued run is visible to it yet);
-- once A commits, B's release starts A's run
select dblink_exec('rel_a', 'begin');
select run_id as queued, status as queued_status from dblink('rel_a',
  $$select run_id, status from pgflow.start_flow('race14r', '{}', concurrency_key => 'ck')$$)
  as t (run_id uuid, status text) \gset
select is(:'queued_status'::text, 'queued', 'A''s start (not committed) is queued behind the holder');
select dblink_send_query('rel_b',
  format($$select count(*) from pgflow_tests.start_and_complete_task(%L, 'work')$$, :'holder'));
select ok(pg_temp.b_waits_for_the_key_lock(), 'B''s release of the holder''s slot waits on the key''s lock');
select dblink_exec('rel_a', 'commit');
select results_eq(
  $$select * from dblink_get_result('rel_b') as t (n bigint)$$,
  $$values (1::bigint)$$,
  'B''s completion returns once A committed'
);
select dblink_get_result('rel_b');
select is(pgflow_tests.run_status(:'holder'), 'completed', 'the holder completed');
select is(pgflow_tests.run_status(:'queued'), 'started', 'A''s queued run was started by B''s release, not stranded');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'queued' and status = 'queued'),
  1,
  'its root task is queued'
);

-- CLEANUP: the committed rows go
select dblink_exec('rel_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('race14r'); end $x$ $o$);
select dblink_exec('rel_a', 'delete from pgflow.workers');
select dblink_disconnect('rel_a');
select dblink_disconnect('rel_b');

select * from finish();
rollback;

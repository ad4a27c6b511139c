begin;
select plan(7);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both racers commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('race_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=race_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('race_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=race_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('race_a', 'set statement_timeout = 20000');
select dblink_exec('race_b', 'set statement_timeout = 20000');

-- SETUP (committed): a root step without handler waits for "go" 60 s, on_timeout continue,
-- beside a root step with a task (so the runs stay started); two runs whose deadlines have
-- passed.
select dblink_exec('race_a', $o$do $x$ begin
  perform pgflow.create_flow('race13');
  perform pgflow.add_step('race13', 'gate');
  perform pgflow.add_wait('race13', 'gate', 'go', timeout => 60, on_timeout => 'continue', runs_handler => false);
  perform pgflow.add_step('race13', 'other');
end $x$ $o$);
select run_id as run1 from dblink('race_a', $$select run_id from pgflow.start_flow('race13', '{}')$$) as t (run_id uuid) \gset
select run_id as run2 from dblink('race_a', $$select run_id from pgflow.start_flow('race13', '{}')$$) as t (run_id uuid) \gset
select dblink_exec('race_a', $$update pgflow.wait_states set deadline = now() - interval '1 second'
  where flow_slug = 'race13'$$);

-- TEST: the signal holds the run (session A, open transaction): the tick (session B) does not
-- wait and does not fire it (SKIP LOCKED); once A commits the wait took the signal, once
select dblink_exec('race_a', 'begin');
select dblink_exec('race_a', format($o$do $x$ begin perform pgflow.send_signal(%L, 'go', '{"n": 1}'); end $x$ $o$, :'run1'));
select results_eq(
  format($$select * from dblink('race_b', 'select ran, fired_waits from pgflow.tick()') as t (ran boolean, fired int)$$),
  $$values (true, 1)$$,
  'the tick skips the locked run1 and fires only run2 (nothing waits for a lock)');
select dblink_exec('race_a', 'commit');
select results_eq(
  format($$select outcome, (select status from pgflow.signals where run_id = %L)
           from pgflow.wait_states where run_id = %L$$, :'run1', :'run1'),
  $$values ('signal'::text, 'taken'::text)$$, 'run1: the wait took the signal (no timeout recorded)');
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run1'),
  $$values ('completed'::text, '{"n": 1}'::jsonb)$$, 'run1: gate completed with the payload');

-- TEST: the tick held run2 (it fired it above, committed): rerun the race the other way on a
-- third run: the tick (A, open transaction) times the wait out; the signal (B) waits for the
-- run lock, then is stored pending, never taken, never dropped
select run_id as run3 from dblink('race_a', $$select run_id from pgflow.start_flow('race13', '{}')$$) as t (run_id uuid) \gset
select dblink_exec('race_a', format($$update pgflow.wait_states set deadline = now() - interval '1 second'
  where run_id = %L$$, :'run3'));
select dblink_exec('race_a', 'begin');
select results_eq(
  $$select * from dblink('race_a', 'select ran, fired_waits from pgflow.tick()') as t (ran boolean, fired int)$$,
  $$values (true, 1)$$, 'the tick (A) fires run3''s wait');
select dblink_send_query('race_b', format($$select status from pgflow.send_signal(%L, 'go', '{"n": 3}')$$, :'run3'));
do $$
begin
  -- the signal (B) is blocked on run3's row lock, held by A (a session state, not time)
  for i in 1 .. 400 loop
    exit when exists (select 1 from pg_stat_activity where application_name = 'race_b' and wait_event_type = 'Lock');
    perform pg_sleep(0.05);
  end loop;
end
$$;
select ok(exists (select 1 from pg_stat_activity where application_name = 'race_b' and wait_event_type = 'Lock'),
  'send_signal (B) waits for the run lock the tick holds');
select dblink_exec('race_a', 'commit');
select results_eq(
  $$select * from dblink_get_result('race_b') as t (status text)$$,
  $$values ('pending'::text)$$, 'after the tick commits, the signal is stored pending');
select results_eq(
  format($$select ws.outcome, ss.status, ss.output, (select count(*) from pgflow.signals as sg
           where sg.run_id = ws.run_id and sg.status = 'pending')
           from pgflow.wait_states as ws join pgflow.step_states as ss using (run_id, step_slug)
           where ws.run_id = %L$$, :'run3'),
  $$values ('timed_out'::text, 'completed'::text, null::jsonb, 1::bigint)$$,
  'run3: one outcome (timed_out, gate completed with null), the late signal kept pending');

-- CLEANUP: the committed rows go
select dblink_get_result('race_b');
select dblink_exec('race_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('race13'); end $x$ $o$);
select dblink_disconnect('race_a');
select dblink_disconnect('race_b');

select * from finish();
rollback;

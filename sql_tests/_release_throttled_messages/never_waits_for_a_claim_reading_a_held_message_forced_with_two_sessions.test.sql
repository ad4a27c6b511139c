begin;
select plan(44);
-- A claim (session A) that read a held message and a release (session B, complete_task of
-- the step's started task) in two open transactions, in both orders, and with A stopped
-- inside its claim right between reading the message and holding it again: the window where
-- a release that deleted the held row and then waited for the queue row deadlocked with the
-- claim's insert of that row. No session ever waits for the other, and the runs go on.
-- Sessions through dblink (this one stays in its transaction and only looks; it never reads
-- a queue table, which would keep the cleanup's drop_queue waiting): the race needs
-- committed rows, so the setup and the sessions commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect(c, format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=%s',
  current_setting('port'), current_database(), current_user, c))
from unnest(array['rtm_a', 'rtm_b', 'rtm_c']) as c;
-- (a session that would wait on another's lock fails the test after 20 s, never hangs)
select dblink_exec(c, 'set statement_timeout = 20000') from unnest(array['rtm_a', 'rtm_b', 'rtm_c']) as c;

-- What the query sent on connection conn does: 'returned' once its result is ready, or, as
-- soon as it waits for a lock another session holds, which lock and which sessions (polled
-- at most 400 times, 50 ms apart: a session state, not time).
create function pg_temp.outcome(conn text)
returns text
language plpgsql
as $f$
declare
  v_wait text;
begin
  for i in 1 .. 400 loop
    if dblink_is_busy(conn) = 0 then
      return 'returned';
    end if;
    perform pg_stat_clear_snapshot();
    select format('waits for a lock (%s) held by %s', a.wait_event,
                  (select string_agg(b.application_name, ', ' order by b.application_name)
                   from pg_stat_activity as b where b.pid = any(pg_blocking_pids(a.pid))))
    into v_wait
    from pg_stat_activity as a
    where a.application_name = conn and a.wait_event_type = 'Lock'
      and cardinality(pg_blocking_pids(a.pid)) > 0;
    if v_wait is not null then
      return v_wait;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return 'still running after 20 s';
end
$f$;

-- SETUP (committed), three flows alike: a root map with max_in_flight 1 over 3 elements;
-- one claim started task 0 and held tasks 1 and 2 (throttled_messages rows, vt 300 s);
-- then task 1's message is made visible by hand, as if its 300 s hold had passed. Each
-- flow has its worker (id md5(flow)).
select dblink_exec('rtm_a', $o$do $x$
declare
  v_slug text;
begin
  foreach v_slug in array array['rtm_ab', 'rtm_ba', 'rtm_mid'] loop
    perform pgflow.create_flow(v_slug);
    perform pgflow.add_step(v_slug, 'items', step_type => 'map', max_in_flight => 1);
    perform pgflow.start_flow(v_slug, '[0, 1, 2]'::jsonb);
    perform pgflow_tests.claim(v_slug, md5(v_slug)::uuid, 10);
    execute format('update pgmq.%I set vt = now() - interval ''1 second''
                    where msg_id = (select message_id from pgflow.step_tasks
                                    where flow_slug = $1 and task_index = 1)',
                   pgmq.format_table_name(v_slug, 'q'))
      using v_slug;
  end loop;
end $x$ $o$);
-- In session A: claim until nothing is left to start, completing each started task (one
-- transaction); returns how many tasks each claim started.
select dblink_exec('rtm_a', $o$create function pg_temp.drive(p_slug text) returns int[]
language plpgsql as $f$
declare
  v_counts int[] := '{}';
  v_n int;
begin
  for i in 1 .. 5 loop
    v_n := pgflow_tests.claim(p_slug, md5(p_slug)::uuid, 10);
    exit when v_n = 0;
    v_counts := v_counts || v_n;
    perform pgflow.complete_task(t.run_id, t.step_slug, t.task_index, to_jsonb(t.task_index))
    from pgflow.step_tasks as t where t.flow_slug = p_slug and t.status = 'started';
  end loop;
  return v_counts;
end $f$ $o$);
select is(pgflow_tests.task_statuses(f, 'items'), '{"queued": 2, "started": 1}'::jsonb,
  format('precondition (%s): task 0 started, tasks 1 and 2 queued', f))
from unnest(array['rtm_ab', 'rtm_ba', 'rtm_mid']) as f;
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index),
        array_agg(t.task_index order by t.task_index) filter (where q.vt <= clock_timestamp())
      from pgflow.throttled_messages as tm
      join pgflow.step_tasks as t on t.flow_slug = tm.flow_slug and t.message_id = tm.message_id
      join pgmq.q_rtm_ab as q on q.msg_id = tm.message_id
      where tm.flow_slug = 'rtm_ab'$q$) as t (held int[], visible int[])$$,
  $$values (array[1, 2], array[1])$$,
  'precondition: tasks 1 and 2 have held rows, task 1''s message is visible again');

-- 1. A READS TASK 1'S HELD MESSAGE AND HOLDS IT AGAIN (open); B'S RELEASE COMES SECOND

-- TEST: A's claim reads task 1's message (the only visible one) and cannot start it (the
-- slot is taken): it holds it again; its held row was there already (committed), so the
-- insert's ON CONFLICT DO NOTHING keeps that row (and locks nothing)
select dblink_exec('rtm_a', 'begin');
select results_eq(
  $$select * from dblink('rtm_a', $q$select count(*) filter (where run_id is not null), count(*)
      from pgflow.read_and_start_tasks('rtm_ab', md5('rtm_ab')::uuid, 10, 30)$q$) as t (claimed bigint, read bigint)$$,
  $$values (0::bigint, 1::bigint)$$, 'A (open) read one message and claimed nothing');
select results_eq(
  $$select * from dblink('rtm_a', $q$select message_id, task_status, vt_seconds between 290 and 301
      from pgflow_tests.held_messages('rtm_ab', 'items')$q$) as t (message_id bigint, task_status text, hidden boolean)$$,
  $$select message_id, 'queued'::text, true from pgflow.step_tasks
    where flow_slug = 'rtm_ab' and task_index in (1, 2) order by message_id$$,
  'in A: tasks 1 and 2 held (one row each), task 1''s message hidden 300 s again');
select is(
  (select n from dblink('rtm_b', $q$select count(*) from (
      select q.msg_id from pgmq.q_rtm_ab as q
      where q.msg_id = (select message_id from pgflow.step_tasks where flow_slug = 'rtm_ab' and task_index = 1)
      for update skip locked) as s$q$) as t (n bigint)),
  0::bigint, 'A holds the lock of task 1''s queue row');

-- TEST: B completes task 0 (its release runs while A is open) and does not wait for A
select dblink_exec('rtm_b', 'begin');
select dblink_send_query('rtm_b', $q$select status from pgflow.complete_task(
  (select run_id from pgflow.runs where flow_slug = 'rtm_ab'), 'items', 0, '0'::jsonb)$q$);
select is(pg_temp.outcome('rtm_b'), 'returned', 'B''s complete_task returns while A is open');
select results_eq($$select * from dblink_get_result('rtm_b', false) as t (status text)$$,
  $$values ('completed'::text)$$, 'B completed task 0');
select * from dblink_get_result('rtm_b', false) as t (status text);  -- (ends B's async query)
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index)
      from pgflow.throttled_messages as tm
      join pgflow.step_tasks as t on t.flow_slug = tm.flow_slug and t.message_id = tm.message_id
      where tm.flow_slug = 'rtm_ab'$q$) as t (held int[])$$,
  $$values (array[1])$$, 'in B: task 1''s message, being read by A, is left to A; task 2''s row is gone (released)');

-- TEST: B commits, then A: no error in either; still at most one task started
select is(dblink_exec('rtm_b', 'commit'), 'COMMIT', 'B commits');
select is(dblink_exec('rtm_a', 'commit'), 'COMMIT', 'A commits');
select is(pgflow_tests.task_statuses('rtm_ab', 'items'), '{"completed": 1, "queued": 2}'::jsonb,
  'task 0 completed, tasks 1 and 2 queued, none started twice');
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index) filter (where tm.message_id is not null),
        array_agg(t.task_index order by t.task_index) filter (where q.vt <= clock_timestamp())
      from pgflow.step_tasks as t
      join pgmq.q_rtm_ab as q on q.msg_id = t.message_id
      left join pgflow.throttled_messages as tm on tm.flow_slug = t.flow_slug and tm.message_id = t.message_id
      where t.flow_slug = 'rtm_ab' and t.status = 'queued'$q$) as t (held int[], visible int[])$$,
  $$values (array[1], array[2])$$, 'task 1 held (by A), task 2 visible (released by B)');

-- TEST: after a tick (task 1's held message goes too: the released one is not claimed yet)
-- the run goes on: one task at a time, and completes
select results_eq($$select * from dblink('rtm_b', 'select released_tasks from pgflow.tick()') as t (n int)$$,
  $$values (1)$$, 'the tick releases task 1''s message');
select results_eq($$select * from dblink('rtm_a', $q$select pg_temp.drive('rtm_ab')$q$) as t (started int[])$$,
  $$values (array[1, 1])$$, 'the claims start tasks 1 and 2 one at a time');
select is((select status from pgflow.runs where flow_slug = 'rtm_ab'), 'completed', 'the run completes');
select is(pgflow_tests.held_count('rtm_ab'), 0::bigint, 'no held row left');

-- 2. B'S RELEASE FIRST (open), THEN A'S CLAIM

-- TEST: B completes task 0: task 1's held message is released (its row deleted, its queue
-- row locked by B until it commits)
select dblink_exec('rtm_b', 'begin');
select results_eq($$select * from dblink('rtm_b', $q$select status from pgflow.complete_task(
    (select run_id from pgflow.runs where flow_slug = 'rtm_ba'), 'items', 0, '0'::jsonb)$q$) as t (status text)$$,
  $$values ('completed'::text)$$, 'B (open) completed task 0');
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index)
      from pgflow.throttled_messages as tm
      join pgflow.step_tasks as t on t.flow_slug = tm.flow_slug and t.message_id = tm.message_id
      where tm.flow_slug = 'rtm_ba'$q$) as t (held int[])$$,
  $$values (array[2])$$, 'in B: task 1''s held row is deleted (released), task 2 still held');
select is(
  (select n from dblink('rtm_c', $q$select count(*) from (
      select q.msg_id from pgmq.q_rtm_ba as q
      where q.msg_id = (select message_id from pgflow.step_tasks where flow_slug = 'rtm_ba' and task_index = 1)
      for update skip locked) as s$q$) as t (n bigint)),
  0::bigint, 'B holds the lock of task 1''s queue row');

-- TEST: A's claim does not wait for B: pgmq.read skips task 1's locked row (and task 2's
-- message is hidden): it reads nothing
select dblink_exec('rtm_a', 'begin');
select dblink_send_query('rtm_a', $q$select count(*) filter (where run_id is not null), count(*)
  from pgflow.read_and_start_tasks('rtm_ba', md5('rtm_ba')::uuid, 10, 30)$q$);
select is(pg_temp.outcome('rtm_a'), 'returned', 'A''s claim returns while B is open');
select results_eq($$select * from dblink_get_result('rtm_a', false) as t (claimed bigint, read bigint)$$,
  $$values (0::bigint, 0::bigint)$$, 'A read nothing');
select * from dblink_get_result('rtm_a', false) as t (claimed bigint, read bigint);  -- (ends A's async query)

-- TEST: A commits, then B: no error; task 1 visible, task 2 held; the run goes on
select is(dblink_exec('rtm_a', 'commit'), 'COMMIT', 'A commits');
select is(dblink_exec('rtm_b', 'commit'), 'COMMIT', 'B commits');
select is(pgflow_tests.task_statuses('rtm_ba', 'items'), '{"completed": 1, "queued": 2}'::jsonb,
  'task 0 completed, tasks 1 and 2 queued');
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index) filter (where tm.message_id is not null),
        array_agg(t.task_index order by t.task_index) filter (where q.vt <= clock_timestamp())
      from pgflow.step_tasks as t
      join pgmq.q_rtm_ba as q on q.msg_id = t.message_id
      left join pgflow.throttled_messages as tm on tm.flow_slug = t.flow_slug and tm.message_id = t.message_id
      where t.flow_slug = 'rtm_ba' and t.status = 'queued'$q$) as t (held int[], visible int[])$$,
  $$values (array[2], array[1])$$, 'task 1 visible (released by B), task 2 held');
select results_eq($$select * from dblink('rtm_b', 'select ran from pgflow.tick()') as t (ran boolean)$$,
  $$values (true)$$, 'a tick runs');
select results_eq($$select * from dblink('rtm_a', $q$select pg_temp.drive('rtm_ba')$q$) as t (started int[])$$,
  $$values (array[1, 1])$$, 'the claims start tasks 1 and 2 one at a time');
select is((select status from pgflow.runs where flow_slug = 'rtm_ba'), 'completed', 'the run completes');

-- 3. A STOPPED INSIDE ITS CLAIM, between reading task 1's message (its queue row locked)
-- and holding it again (the insert of its held row): session C holds the step's
-- max_in_flight lock, which A's _throttle_claims waits for. B's release runs in that window.

-- TEST: A's claim read the message and waits for the step's lock (held by C)
select dblink_exec('rtm_c', 'begin');
select dblink_exec('rtm_c', $q$do $x$ begin
  perform pg_advisory_xact_lock(hashtext('pgflow.max_in_flight'), hashtext('rtm_mid/items'));
end $x$$q$);
select dblink_exec('rtm_a', 'begin');
select dblink_send_query('rtm_a', $q$select count(*) filter (where run_id is not null), count(*)
  from pgflow.read_and_start_tasks('rtm_mid', md5('rtm_mid')::uuid, 10, 30)$q$);
select is(pg_temp.outcome('rtm_a'), 'waits for a lock (advisory) held by rtm_c',
  'A''s claim waits for the max_in_flight lock of the step, held by C');
select is(
  (select n from dblink('rtm_b', $q$select count(*) from (
      select q.msg_id from pgmq.q_rtm_mid as q
      where q.msg_id = (select message_id from pgflow.step_tasks where flow_slug = 'rtm_mid' and task_index = 1)
      for update skip locked) as s$q$) as t (n bigint)),
  0::bigint, 'A holds the lock of task 1''s queue row');

-- TEST: B completes task 0 in the window and does not wait for A
select dblink_exec('rtm_b', 'begin');
select dblink_send_query('rtm_b', $q$select status from pgflow.complete_task(
  (select run_id from pgflow.runs where flow_slug = 'rtm_mid'), 'items', 0, '0'::jsonb)$q$);
select is(pg_temp.outcome('rtm_b'), 'returned', 'B''s complete_task returns while A is inside its claim');

-- TEST: C lets A go on (B still open): A sees task 0 started still (B has not committed),
-- holds task 1 again, and its insert of the held row does not wait for B (a release that
-- deleted that row and waited for A's queue row would deadlock here)
select is(dblink_exec('rtm_c', 'commit'), 'COMMIT', 'C commits (the step''s lock is free)');
select is(pg_temp.outcome('rtm_a'), 'returned', 'A''s claim returns while B is open');
select results_eq($$select * from dblink_get_result('rtm_a', false) as t (claimed bigint, read bigint)$$,
  $$values (0::bigint, 1::bigint)$$, 'A read task 1''s message and claimed nothing');
select * from dblink_get_result('rtm_a', false) as t (claimed bigint, read bigint);  -- (ends A's async query)
select results_eq($$select * from dblink_get_result('rtm_b', false) as t (status text)$$,
  $$values ('completed'::text)$$, 'B completed task 0');
select * from dblink_get_result('rtm_b', false) as t (status text);  -- (ends B's async query)

-- TEST: B left task 1's held row to A and released task 2's
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index)
      from pgflow.throttled_messages as tm
      join pgflow.step_tasks as t on t.flow_slug = tm.flow_slug and t.message_id = tm.message_id
      where tm.flow_slug = 'rtm_mid'$q$) as t (held int[])$$,
  $$values (array[1])$$, 'in B: task 1''s held row is left to A, task 2''s is gone (released)');

-- TEST: B commits, then A: no deadlock, no error; the run goes on after a tick
select is(dblink_exec('rtm_b', 'commit'), 'COMMIT', 'B commits');
select is(dblink_exec('rtm_a', 'commit'), 'COMMIT', 'A commits');
select results_eq(
  $$select * from dblink('rtm_b', $q$select array_agg(t.task_index order by t.task_index) filter (where tm.message_id is not null),
        array_agg(t.task_index order by t.task_index) filter (where q.vt <= clock_timestamp())
      from pgflow.step_tasks as t
      join pgmq.q_rtm_mid as q on q.msg_id = t.message_id
      left join pgflow.throttled_messages as tm on tm.flow_slug = t.flow_slug and tm.message_id = t.message_id
      where t.flow_slug = 'rtm_mid' and t.status = 'queued'$q$) as t (held int[], visible int[])$$,
  $$values (array[1], array[2])$$, 'task 1 held (by A), task 2 visible (released by B), none started');
select results_eq($$select * from dblink('rtm_b', 'select released_tasks from pgflow.tick()') as t (n int)$$,
  $$values (1)$$, 'the tick releases task 1''s message');
select results_eq($$select * from dblink('rtm_a', $q$select pg_temp.drive('rtm_mid')$q$) as t (started int[])$$,
  $$values (array[1, 1])$$, 'the claims start tasks 1 and 2 one at a time');
select is((select status from pgflow.runs where flow_slug = 'rtm_mid'), 'completed', 'the run completes');

-- CLEANUP: the committed rows go (throttled_messages and workers too)
select dblink_exec('rtm_a', $o$do $x$
declare
  v_slug text;
begin
  foreach v_slug in array array['rtm_ab', 'rtm_ba', 'rtm_mid'] loop
    perform pgflow.delete_flow_and_data(v_slug);
    delete from pgflow.throttled_messages where flow_slug = v_slug;
    delete from pgflow.workers where worker_id = md5(v_slug)::uuid;
  end loop;
end $x$ $o$);
select dblink_disconnect(c) from unnest(array['rtm_a', 'rtm_b', 'rtm_c']) as c;

select * from finish();
rollback;

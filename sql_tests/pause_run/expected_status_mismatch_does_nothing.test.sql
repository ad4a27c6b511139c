begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow "one" (a single step): a started run (task queued) and a cancelled run
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as run from pgflow.start_flow('one', '{}'::jsonb) \gset
select run_id as stopped from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'stopped', 'alice', null);

create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_one as q),
    'archive', (select jsonb_agg(a.msg_id order by a.msg_id) from pgmq.a_one as a));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: a started run expected paused: nothing done (its queued task is not parked)
select results_eq(
  format($$select * from pgflow.pause_run(%L, 'bob', 'why', 'paused')$$, :'run'),
  format($$values (%L::uuid, 'started'::text, false, 'run is started, not paused: nothing done'::text)$$, :'run'),
  'a started run expected paused returns (run_id, started, false, why)'
);
-- TEST: a cancelled run expected started: no error, nothing done
select results_eq(
  format($$select * from pgflow.pause_run(%L, 'bob', 'why', 'started')$$, :'stopped'),
  format($$values (%L::uuid, 'cancelled'::text, false, 'run is cancelled, not started: nothing done'::text)$$, :'stopped'),
  'a cancelled run expected started returns (run_id, cancelled, false, why) instead of raising'
);

-- TEST: nothing was written
select is(pg_temp.state(), (select s from before), 'runs, tasks, events, queue and archive are unchanged');
select is((select count(*) from pgflow.run_events where actor = 'bob'), 0::bigint, 'no event names bob');

-- TEST: the expected status matching, the run is paused and its task parked
select results_eq(
  format($$select status, changed, detail from pgflow.pause_run(%L, 'bob', 'why', 'started')$$, :'run'),
  $$values ('paused'::text, true, null::text)$$,
  'expected_status started on a started run: paused, changed'
);
select is(
  (select count(*) from pgmq.q_one where message ->> 'run_id' = :'run'), 0::bigint,
  'its queued task''s message is parked');

select * from finish();
rollback;

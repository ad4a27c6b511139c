begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow "one" (a single step): a paused run (task parked) and a completed run
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as run from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'run', 'alice', null);
select run_id as done from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'done', 'only');

create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_one as q),
    'archive', (select jsonb_agg(a.msg_id order by a.msg_id) from pgmq.a_one as a));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: a paused run expected started: nothing done (nothing resent)
select results_eq(
  format($$select * from pgflow.resume_run(%L, 'bob', 'why', 'started')$$, :'run'),
  format($$values (%L::uuid, 'paused'::text, false, 'run is paused, not started: nothing done'::text)$$, :'run'),
  'a paused run expected started returns (run_id, paused, false, why)'
);
-- TEST: a completed run expected paused: no error, nothing done
select results_eq(
  format($$select * from pgflow.resume_run(%L, 'bob', 'why', 'paused')$$, :'done'),
  format($$values (%L::uuid, 'completed'::text, false, 'run is completed, not paused: nothing done'::text)$$, :'done'),
  'a completed run expected paused returns (run_id, completed, false, why) instead of raising'
);

-- TEST: nothing was written
select is(pg_temp.state(), (select s from before), 'runs, tasks, events, queue and archive are unchanged');
select is((select count(*) from pgflow.run_events where actor = 'bob'), 0::bigint, 'no event names bob');

-- TEST: the expected status matching, the run is resumed and its task resent
select results_eq(
  format($$select status, changed, detail from pgflow.resume_run(%L, 'bob', 'why', 'paused')$$, :'run'),
  $$values ('started'::text, true, null::text)$$,
  'expected_status paused on a paused run: started, changed'
);
select is(
  (select count(*) from pgmq.q_one where message ->> 'run_id' = :'run'), 1::bigint,
  'its task has a message in the queue again');

select * from finish();
rollback;

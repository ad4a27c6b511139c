begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow "one" (a single step): a started run and a completed run
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as run from pgflow.start_flow('one', '{}'::jsonb) \gset
select run_id as done from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'done', 'only');

create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'steps', (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_one as q),
    'archive', (select jsonb_agg(a.msg_id order by a.msg_id) from pgmq.a_one as a));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: a started run expected paused: nothing done, the status it has is returned
select results_eq(
  format($$select * from pgflow.cancel_run(%L, 'alice', 'why', 'paused')$$, :'run'),
  format($$values (%L::uuid, 'started'::text, false, 'run is started, not paused: nothing done'::text)$$, :'run'),
  'a started run expected paused returns (run_id, started, false, why nothing was done)'
);
-- TEST: a completed run expected started: no error, nothing done
select results_eq(
  format($$select * from pgflow.cancel_run(%L, 'alice', 'why', 'started')$$, :'done'),
  format($$values (%L::uuid, 'completed'::text, false, 'run is completed, not started: nothing done'::text)$$, :'done'),
  'a completed run expected started returns (run_id, completed, false, why) instead of raising'
);
select lives_ok(
  format($$select * from pgflow.cancel_run(%L, 'alice', 'why', 'cancelled')$$, :'run'),
  'a started run expected cancelled does not raise'
);

-- TEST: nothing was written
select is(pg_temp.state(), (select s from before), 'runs, steps, tasks, events, queue and archive are unchanged');
select is((select count(*) from pgflow.run_events where actor = 'alice'), 0::bigint, 'no event names alice');

-- TEST: the expected status matching, the run is cancelled
select results_eq(
  format($$select status, changed, detail from pgflow.cancel_run(%L, 'alice', 'why', 'started')$$, :'run'),
  $$values ('cancelled'::text, true, null::text)$$,
  'expected_status started on a started run: cancelled, changed'
);
select is((select status from pgflow.runs where run_id = :'run'), 'cancelled', 'the run is cancelled');

select * from finish();
rollback;

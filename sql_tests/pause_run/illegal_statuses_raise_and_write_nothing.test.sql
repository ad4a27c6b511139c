begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: runs of flow "one" (a single step): paused, completed, failed, cancelled
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as held from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'held', 'alice', null);
select run_id as done from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'done', 'only');
select run_id as broken from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_fail_task(:'broken', 'only');
select run_id as stopped from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'stopped', 'alice', null);

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

-- TEST: the setup reached the four statuses
select results_eq(
  format($$select status from pgflow.runs where run_id in (%L, %L, %L, %L) order by status$$,
         :'held', :'done', :'broken', :'stopped'),
  $$values ('cancelled'::text), ('completed'), ('failed'), ('paused')$$,
  'the runs are paused, completed, failed and cancelled'
);

-- TEST: pausing any run that is not started raises 55000 naming its status
select throws_ok(
  format($$select * from pgflow.pause_run(%L, 'bob', 'again')$$, :'held'),
  '55000', format('pause_run: run %s is paused', :'held'),
  'pausing a paused run raises object_not_in_prerequisite_state naming paused'
);
select throws_ok(
  format($$select * from pgflow.pause_run(%L, 'bob', 'again')$$, :'done'),
  '55000', format('pause_run: run %s is completed', :'done'),
  'pausing a completed run raises 55000 naming completed'
);
select throws_ok(
  format($$select * from pgflow.pause_run(%L, 'bob', 'again')$$, :'broken'),
  '55000', format('pause_run: run %s is failed', :'broken'),
  'pausing a failed run raises 55000 naming failed'
);
select throws_ok(
  format($$select * from pgflow.pause_run(%L, 'bob', 'again')$$, :'stopped'),
  '55000', format('pause_run: run %s is cancelled', :'stopped'),
  'pausing a cancelled run raises 55000 naming cancelled'
);

-- TEST: nothing was written, no event recorded
select is(pg_temp.state(), (select s from before), 'runs, steps, tasks, events, queue and archive are unchanged');
select is((select count(*) from pgflow.run_events where actor = 'bob'), 0::bigint, 'no event names bob');

select * from finish();
rollback;

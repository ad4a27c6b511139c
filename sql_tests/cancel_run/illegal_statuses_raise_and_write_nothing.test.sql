begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: one run of flow "one" (a single step) completed, one failed, one cancelled
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as done from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'done', 'only');
select run_id as broken from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_fail_task(:'broken', 'only');
select run_id as stopped from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'stopped', 'alice', null);

-- Everything cancel_run could write: runs, steps, tasks, events, queue and archive.
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
select status as done_status from pgflow.runs where run_id = :'done' \gset
select status as broken_status from pgflow.runs where run_id = :'broken' \gset
select status as stopped_status from pgflow.runs where run_id = :'stopped' \gset

-- TEST: the setup reached the three terminal statuses
select results_eq(
  format($$values (%L::text, %L::text, %L::text)$$, :'done_status', :'broken_status', :'stopped_status'),
  $$values ('completed'::text, 'failed'::text, 'cancelled'::text)$$,
  'the runs are completed, failed and cancelled'
);

-- TEST: each terminal status raises 55000 naming it
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, 'bob', 'late')$$, :'done'),
  '55000', format('cancel_run: run %s is completed', :'done'),
  'cancelling a completed run raises object_not_in_prerequisite_state naming completed'
);
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, 'bob', 'late')$$, :'broken'),
  '55000', format('cancel_run: run %s is failed', :'broken'),
  'cancelling a failed run raises object_not_in_prerequisite_state naming failed'
);
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, 'bob', 'late')$$, :'stopped'),
  '55000', format('cancel_run: run %s is cancelled', :'stopped'),
  'cancelling a cancelled run raises object_not_in_prerequisite_state naming cancelled'
);
-- (an expected_status equal to the run's status does not make an illegal status legal)
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, 'bob', 'late', 'completed')$$, :'done'),
  '55000', format('cancel_run: run %s is completed', :'done'),
  'with expected_status = its status, a completed run still raises 55000'
);

-- TEST: nothing was written, no event recorded
select is(pg_temp.state(), (select s from before), 'runs, steps, tasks, events, queue and archive are unchanged');
select is(
  (select count(*) from pgflow.run_events where actor = 'bob'),
  0::bigint, 'no event names bob');

select * from finish();
rollback;

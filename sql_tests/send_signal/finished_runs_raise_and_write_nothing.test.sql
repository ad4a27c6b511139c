begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow "fin": work (a task) and gate (waits for "go", no handler), both roots. One
-- run completed, one failed, one cancelled.
select pgflow.create_flow('fin', max_attempts => 1);
select pgflow.add_step('fin', 'work');
select pgflow.add_step('fin', 'gate');
select pgflow.add_wait('fin', 'gate', 'go', runs_handler => false);
select run_id as done from pgflow.start_flow('fin', '{}'::jsonb) \gset
select count(*) from pgflow.send_signal(:'done', 'go');
select count(*) from pgflow_tests.start_and_complete_task(:'done', 'work');
select run_id as broken from pgflow.start_flow('fin', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_fail_task(:'broken', 'work');
select run_id as stopped from pgflow.start_flow('fin', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'stopped', 'alice', null);

-- Everything send_signal could write.
create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'steps', (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug) from pgflow.step_tasks as t),
    'waits', (select jsonb_agg(to_jsonb(w) order by w.run_id, w.step_slug) from pgflow.wait_states as w),
    'signals', (select jsonb_agg(to_jsonb(g) order by g.signal_id) from pgflow.signals as g),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_fin as q));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: the setup reached the three statuses
select results_eq(
  format($$select status from pgflow.runs where run_id in (%L, %L, %L) order by status$$,
         :'done', :'broken', :'stopped'),
  $$values ('cancelled'::text), ('completed'), ('failed')$$,
  'the runs are completed, failed and cancelled'
);

-- TEST: each raises 55000 naming the status
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', '{}', null, 'bob', 'late')$$, :'done'),
  '55000', format('send_signal: run %s is completed', :'done'),
  'a completed run raises 55000'
);
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', '{}', null, 'bob', 'late')$$, :'broken'),
  '55000', format('send_signal: run %s is failed', :'broken'),
  'a failed run raises 55000'
);
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', '{}', null, 'bob', 'late')$$, :'stopped'),
  '55000', format('send_signal: run %s is cancelled', :'stopped'),
  'a cancelled run raises 55000'
);
-- (with a new idempotency key too: only a key already stored returns a duplicate)
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', '{}', 'new-key', 'bob', 'late')$$, :'stopped'),
  '55000', format('send_signal: run %s is cancelled', :'stopped'),
  'a new key to a cancelled run raises 55000'
);

-- TEST: nothing was written
select is(pg_temp.state(), (select s from before), 'runs, steps, tasks, waits, signals, events, queue unchanged');
select is((select count(*)::int from pgflow.run_events where actor = 'bob'), 0, 'no event names bob');
select is((select count(*)::int from pgflow.signals where run_id in (:'broken', :'stopped')), 0,
  'no signal stored for the failed and the cancelled run');

select * from finish();
rollback;

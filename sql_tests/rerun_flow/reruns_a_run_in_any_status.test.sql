begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: runs of the sequential flow: completed, failed, cancelled, started, paused
select pgflow_tests.setup_flow('sequential');
select run_id as completed from pgflow.start_flow('sequential', '{"k": "completed"}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'completed', 'first');
select pgflow_tests.start_and_complete_task(:'completed', 'second');
select pgflow_tests.start_and_complete_task(:'completed', 'last');
select run_id as failed from pgflow.start_flow('sequential', '{"k": "failed"}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'failed', 'first');
select run_id as cancelled from pgflow.start_flow('sequential', '{"k": "cancelled"}'::jsonb) \gset
select * from pgflow.cancel_run(:'cancelled', 'setup', null);
select run_id as started from pgflow.start_flow('sequential', '{"k": "started"}'::jsonb) \gset
select run_id as paused from pgflow.start_flow('sequential', '{"k": "paused"}'::jsonb) \gset
select * from pgflow.pause_run(:'paused', 'setup', null);
create temp table before as select run_id, status from pgflow.runs;

-- TEST: each of them gets a new started run with its input, rerun_of set
create temp table reruns as
select b.run_id as old_run, b.status as old_status, r.run_id as new_run, r.status, r.changed
from before as b
cross join lateral pgflow.rerun_flow(b.run_id, 'alice', 'again') as r;
select results_eq(
  $$select x.old_status, x.status, x.changed, n.rerun_of = x.old_run, n.input = o.input, n.status
    from reruns as x
    join pgflow.runs as n on n.run_id = x.new_run
    join pgflow.runs as o on o.run_id = x.old_run
    order by x.old_status$$,
  $$values ('cancelled'::text, 'started'::text, true, true, true, 'started'::text),
           ('completed', 'started', true, true, true, 'started'),
           ('failed', 'started', true, true, true, 'started'),
           ('paused', 'started', true, true, true, 'started'),
           ('started', 'started', true, true, true, 'started')$$,
  'completed, failed, cancelled, started and paused runs are rerun: a new started run with the same input'
);

-- TEST: the old runs keep their status
select results_eq(
  $$select r.run_id, r.status from pgflow.runs as r join before as b using (run_id) order by r.run_id$$,
  $$select run_id, status from before order by run_id$$,
  'every old run keeps its status'
);
select is((select count(*)::int from pgflow.runs), 10, 'five new runs in all');

-- TEST: each old run has its run:rerun event naming its new run
select results_eq(
  $$select x.old_status, e.actor, e.reason, (e.details ->> 'new_run_id')::uuid = x.new_run
    from reruns as x join pgflow.run_events as e on e.run_id = x.old_run and e.event = 'run:rerun'
    order by x.old_status$$,
  $$values ('cancelled'::text, 'alice'::text, 'again'::text, true), ('completed', 'alice', 'again', true),
           ('failed', 'alice', 'again', true), ('paused', 'alice', 'again', true), ('started', 'alice', 'again', true)$$,
  'run:rerun on each old run with actor, reason and details.new_run_id'
);

-- TEST: a rerun of a rerun is possible and names its own origin
select run_id as second_gen from pgflow.rerun_flow((select new_run from reruns where old_status = 'failed'), 'bob', null) \gset
select is(
  (select rerun_of from pgflow.runs where run_id = :'second_gen'),
  (select new_run from reruns where old_status = 'failed'),
  'rerunning a rerun: rerun_of is the run it reruns'
);
select results_eq(
  format($$select event, actor, reason from pgflow.run_events where run_id = %L and step_slug is null$$, :'second_gen'),
  $$values ('run:started'::text, 'bob'::text, null::text)$$,
  'with a NULL reason the new run''s run:started has no reason'
);

-- TEST: the new runs' first tasks are queued: 5 + 1 new runs, plus the started run's own
-- queued task (the paused run parked its task)
select is(
  (select count(*)::int from pgflow.step_tasks as t join reruns as x on x.new_run = t.run_id where t.status = 'queued'),
  5,
  'each rerun from the first batch has one queued task'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'second_gen' and status = 'queued'),
  1,
  'the rerun of the rerun has one queued task'
);

-- TEST: a rerun of a paused run is not paused (it is a new run)
select is(
  (select paused_at from pgflow.runs where run_id = (select new_run from reruns where old_status = 'paused')),
  null::timestamptz,
  'the rerun of a paused run has no paused_at'
);
select is(
  (select count(*)::int from pgflow.run_events where event = 'run:rerun'),
  6,
  'six run:rerun events in all'
);

select * from finish();
rollback;

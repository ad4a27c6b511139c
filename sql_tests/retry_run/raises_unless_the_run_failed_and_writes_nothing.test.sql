begin;
select plan(14);
select pgflow_tests.reset_db();

-- SETUP: runs of the sequential flow in every status but failed, and one failed run
select pgflow_tests.setup_flow('sequential');
select run_id as started from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as paused from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select * from pgflow.pause_run(:'paused', 'setup', null);
select run_id as completed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'completed', 'first');
select pgflow_tests.start_and_complete_task(:'completed', 'second');
select pgflow_tests.start_and_complete_task(:'completed', 'last');
select run_id as cancelled from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select * from pgflow.cancel_run(:'cancelled', 'setup', null);
select run_id as failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'failed', 'first');

create temp table snapshot as
select (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r) as runs,
       (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s) as steps,
       (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t) as tasks,
       (select count(*) from pgflow.run_events) as events,
       pgflow_tests.queue_count('sequential') as queued;

-- TEST: a run that is not failed raises 55000 naming its status
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r')$$, :'started'),
  '55000', format('retry_run: run %s is started', :'started'), 'a started run raises 55000');
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r')$$, :'paused'),
  '55000', format('retry_run: run %s is paused', :'paused'), 'a paused run raises 55000');
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r')$$, :'completed'),
  '55000', format('retry_run: run %s is completed', :'completed'), 'a completed run raises 55000');
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r')$$, :'cancelled'),
  '55000', format('retry_run: run %s is cancelled', :'cancelled'), 'a cancelled run raises 55000');

-- TEST: unknown run
select throws_ok(
  $$select * from pgflow.retry_run('00000000-0000-0000-0000-000000000000', 'alice', 'r')$$,
  'P0002', 'retry_run: run 00000000-0000-0000-0000-000000000000 does not exist', 'an unknown run raises P0002');

-- TEST: a NULL or blank actor, an unknown expected_status
select throws_ok(
  format($$select * from pgflow.retry_run(%L, '', 'r')$$, :'failed'),
  '22023', 'retry_run: actor must name who acts (got '''')', 'an empty actor raises 22023');
select throws_ok(
  format($$select * from pgflow.retry_run(%L, '  ', 'r')$$, :'failed'),
  '22023', 'retry_run: actor must name who acts (got ''  '')', 'a blank actor raises 22023');
select throws_ok(
  format($$select * from pgflow.retry_run(%L, null, 'r')$$, :'failed'),
  '22023', 'retry_run: actor must name who acts (got NULL)', 'a NULL actor raises 22023');
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r', 'broken')$$, :'failed'),
  '22023', 'retry_run: expected_status ''broken'' is not a run status', 'an unknown expected_status raises 22023');

-- TEST: none of these calls wrote anything
select is(
  (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
  (select runs from snapshot), 'the runs are unchanged');
select is(
  (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
  (select steps from snapshot), 'the step states are unchanged');
select is(
  (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
  (select tasks from snapshot), 'the tasks are unchanged');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');
select is(pgflow_tests.queue_count('sequential'), (select queued from snapshot), 'no message was sent');

select * from finish();
rollback;

begin;
select plan(19);
select pgflow_tests.reset_db();

-- SETUP (sequential flow first -> second -> last, max_attempts 1):
--   "live": started run, first completed, second started, last created;
--   "skipped": started run whose created step "last" was skipped;
--   "failed": failed run, first failed, second and last cancelled;
--   "completed" and "cancelled" runs.
select pgflow_tests.setup_flow('sequential');
select run_id as live from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'live', 'first');
select count(*) from pgflow_tests.start_task(:'live', 'second');
select run_id as skipped from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select * from pgflow.skip_step(:'skipped', 'last', 'setup', null);
select run_id as failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'failed', 'first');
select run_id as completed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'completed', 'first');
select pgflow_tests.start_and_complete_task(:'completed', 'second');
select pgflow_tests.start_and_complete_task(:'completed', 'last');
select run_id as cancelled from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select * from pgflow.cancel_run(:'cancelled', 'setup', null);

create temp table snapshot as
select (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r) as runs,
       (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s) as steps,
       (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t) as tasks,
       (select count(*) from pgflow.run_events) as events,
       pgflow_tests.queue_count('sequential') as queued,
       pgflow_tests.queue_count('sequential', 'a') as archived;

-- TEST: a step that is completed, started or skipped (of a started run)
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'first', 'alice', 'r')$$, :'live'), '55000',
  format('skip_step: step ''first'' of run %s is completed (the run is started)', :'live'),
  'a completed step raises 55000');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'second', 'alice', 'r')$$, :'live'), '55000',
  format('skip_step: step ''second'' of run %s is started (the run is started)', :'live'),
  'a started step raises 55000');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', 'alice', 'r')$$, :'skipped'), '55000',
  format('skip_step: step ''last'' of run %s is skipped (the run is started)', :'skipped'),
  'a skipped step raises 55000 (no second skip)');

-- TEST: the cancelled steps of a failed run
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'second', 'alice', 'r')$$, :'failed'), '55000',
  format('skip_step: step ''second'' of run %s is cancelled (the run is failed)', :'failed'),
  'a cancelled step of a failed run raises 55000');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', 'alice', 'r')$$, :'failed'), '55000',
  format('skip_step: step ''last'' of run %s is cancelled (the run is failed)', :'failed'),
  'another cancelled step of the failed run raises 55000');

-- TEST: a completed or cancelled run
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', 'alice', 'r')$$, :'completed'), '55000',
  format('skip_step: run %s is completed', :'completed'),
  'a completed run raises 55000');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', 'alice', 'r')$$, :'cancelled'), '55000',
  format('skip_step: run %s is cancelled', :'cancelled'),
  'a cancelled run raises 55000 (for its cancelled step)');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'nope', 'alice', 'r')$$, :'cancelled'), '55000',
  format('skip_step: run %s is cancelled', :'cancelled'),
  'the run status is checked before the step');

-- TEST: unknown step or run
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'nope', 'alice', 'r')$$, :'live'), 'P0002',
  format('skip_step: run %s has no step ''nope''', :'live'),
  'an unknown step raises P0002');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, null, 'alice', 'r')$$, :'live'), 'P0002',
  format('skip_step: run %s has no step NULL', :'live'),
  'a NULL step raises P0002');
select throws_ok(
  $$select * from pgflow.skip_step('00000000-0000-0000-0000-000000000000', 'first', 'alice', 'r')$$, 'P0002',
  'skip_step: run 00000000-0000-0000-0000-000000000000 does not exist',
  'an unknown run raises P0002');

-- TEST: bad arguments
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', ' ', 'r')$$, :'live'), '22023',
  'skip_step: actor must name who acts (got '' '')',
  'a blank actor raises 22023');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', null, 'r')$$, :'live'), '22023',
  'skip_step: actor must name who acts (got NULL)',
  'a NULL actor raises 22023');
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'last', 'alice', 'r', 'created')$$, :'live'), '22023',
  'skip_step: expected_status ''created'' is not a run status',
  'a step status as expected_status raises 22023');

-- TEST: nothing was written
select is((select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r), (select runs from snapshot),
  'the runs are unchanged');
select is((select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
  (select steps from snapshot), 'the step states are unchanged');
select is((select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
  (select tasks from snapshot), 'the tasks are unchanged');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');
select is(
  array[pgflow_tests.queue_count('sequential'), pgflow_tests.queue_count('sequential', 'a')],
  (select array[queued, archived] from snapshot),
  'no message was sent or archived');

select * from finish();
rollback;

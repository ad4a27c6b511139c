begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow (max_attempts 1) and a one-step flow; run "live" started
-- (first started), run "failed" failed by the worker (first failed, second and last
-- cancelled), run "done" completed
select pgflow_tests.setup_flow('sequential');
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as live from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as done from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_fail_task(:'failed', 'first');
select count(*) from pgflow_tests.start_and_complete_task(:'done', 'only');
select count(*) as before from pgflow.run_events \gset

-- TEST: transitions called again where they have nothing to change record nothing
select pgflow._fail_run(:'failed', 'again');
select is((select count(*) from pgflow.run_events), :before::bigint, '_fail_run of a failed run: nothing');
select pgflow._cancel_unfinished_work(array[:'failed']::uuid[]);
select is((select count(*) from pgflow.run_events), :before::bigint, '_cancel_unfinished_work again: nothing');
select pgflow._complete_runs(array[:'done', :'live', :'failed']::uuid[]);
select is((select count(*) from pgflow.run_events), :before::bigint,
  '_complete_runs of a completed, an unfinished and a failed run: nothing');
select pgflow.start_ready_steps(:'live');
select pgflow.cascade_complete_taskless_steps(:'live');
select pgflow._skip_steps(:'done', array['only'], 'condition_unmet');
select is((select count(*) from pgflow.run_events), :before::bigint,
  'start_ready_steps and cascade_complete_taskless_steps with nothing ready, _skip_steps of a completed step: nothing');

-- TEST: late reports (a failed task, a completed task) record nothing
select count(*) from pgflow.fail_task(:'failed', 'first', 0, 'late');
select count(*) from pgflow.complete_task(:'done', 'only', 0, '{}'::jsonb);
select is((select count(*) from pgflow.run_events), :before::bigint, 'late reports: nothing');

-- TEST: a verb whose expected_status no longer holds records nothing
select is(
  (select changed from pgflow.cancel_run(:'live', 'alice', 'x', 'paused')),
  false, 'precondition: cancel_run with expected_status paused on a started run changes nothing');
select is((select count(*) from pgflow.run_events), :before::bigint, 'verb with a stale expected_status: nothing');

select * from finish();
rollback;

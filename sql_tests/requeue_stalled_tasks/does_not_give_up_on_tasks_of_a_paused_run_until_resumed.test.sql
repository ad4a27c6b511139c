begin;
select plan(9);

-- A paused run's stalled tasks are left alone, the one at the requeue limit included: not
-- requeued, not given up on, until resume_run; then the next call handles them.
-- SETUP: two runs of a one-step flow, both tasks started and stalled; run_limit's task has
-- been requeued 3 times already, run_fresh's never. Both runs paused.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_limit from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_fresh from pgflow.start_flow('stall', '{}'::jsonb) \gset
update pgflow.step_tasks set requeued_count = 3 where run_id = :'run_limit';
select count(*) from pgflow_tests.read_and_start('stall', 1, 2);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select count(*) from pgflow.pause_run(:'run_limit', 'alice', null);
select count(*) from pgflow.pause_run(:'run_fresh', 'alice', null);
select count(*) as events_before from pgflow.run_events \gset

-- TEST: while paused: nothing requeued, nothing given up on, nothing recorded
select is(pgflow.requeue_stalled_tasks(), 0, 'paused: nothing requeued');
select results_eq(
  $$select requeued_count, status, permanently_stalled_at is null from pgflow.step_tasks order by requeued_count$$,
  $$values (0, 'started'::text, true), (3, 'started', true)$$,
  'both tasks still started, unstamped');
select is((select count(*) from pgflow.run_events), :'events_before'::bigint, 'no event recorded');

-- TEST: after resume_run, the next call requeues the fresh task and gives up on the other
select count(*) from pgflow.resume_run(:'run_limit', 'alice', null);
select count(*) from pgflow.resume_run(:'run_fresh', 'alice', null);
select is(pgflow.requeue_stalled_tasks(), 1, 'resumed: the fresh task is requeued');
select is(status || '/' || requeued_count, 'queued/1', 'run_fresh''s task is queued again')
from pgflow.step_tasks where run_id = :'run_fresh';
select ok(status = 'failed' and permanently_stalled_at is not null,
          'run_limit''s task is given up on: failed and stamped')
from pgflow.step_tasks where run_id = :'run_limit';
select is(status, 'failed', 'run_limit fails (when_exhausted fail)')
from pgflow.runs where run_id = :'run_limit';
select is(status, 'started', 'run_fresh goes on')
from pgflow.runs where run_id = :'run_fresh';
select is(pgflow_tests.visible_count('stall'), 1::bigint, 'run_fresh''s message is visible');

select * from finish();
rollback;

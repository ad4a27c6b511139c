begin;
select plan(9);

-- The view pgflow.permanently_stalled_tasks is the alert for tasks that versions before
-- 0.2.0 gave up on after 3 requeues and left started (permanently_stalled_at stamped,
-- message archived). Once an operator resolves such a task (complete_task or fail_task, as
-- the view's comment advises) it must leave the alert list, or the alert never clears. A
-- task the current requeue_stalled_tasks gives up on fails at once: nothing to resolve,
-- never listed.
-- SETUP: four runs of a one-step flow (1 attempt), each task at the requeue limit, started
-- and stalled. Three are in the legacy state (stamped, still started, message archived, as
-- an earlier version left them), written directly.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 1, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_done from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_failed from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_open from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_new from pgflow.start_flow('stall', '{}'::jsonb) \gset
update pgflow.step_tasks set requeued_count = 3;
select count(*) from pgflow_tests.read_and_start('stall', 1, 10);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
update pgflow.step_tasks set permanently_stalled_at = now() - interval '1 hour'
where run_id in (:'run_done', :'run_failed', :'run_open');
select pgmq.archive('stall', array(
  select message_id from pgflow.step_tasks where run_id in (:'run_done', :'run_failed', :'run_open')));

-- TEST: requeue_stalled_tasks leaves the legacy tasks alone and fails the new one
select is(pgflow.requeue_stalled_tasks(), 0, 'requeue_stalled_tasks requeues nothing');
select is(
  (select status from pgflow.step_tasks where run_id = :'run_new'),
  'failed', 'the task the current version gives up on is failed');
select set_eq(
  $$select run_id, run_status from pgflow.permanently_stalled_tasks$$,
  format($$values (%L::uuid, 'started'::text), (%L::uuid, 'started'), (%L::uuid, 'started')$$,
         :'run_done', :'run_failed', :'run_open'),
  'exactly the three legacy tasks are listed (still started, runs started), not the failed one');

-- TEST: resolving by complete_task / fail_task removes the task from the alert list
select pgflow.complete_task(:'run_done', 'only', 0, '"fixed by hand"'::jsonb);
select pgflow.fail_task(:'run_failed', 'only', 0, 'given up by the operator');
select is(status, 'completed', 'precondition: the completed task is completed')
from pgflow.step_tasks where run_id = :'run_done';
select is(count(*)::int, 0, 'a task completed by the operator is no longer listed')
from pgflow.permanently_stalled_tasks where run_id = :'run_done';
select is(status, 'failed', 'precondition: the failed task is failed')
from pgflow.step_tasks where run_id = :'run_failed';
select is(count(*)::int, 0, 'a task failed by the operator is no longer listed')
from pgflow.permanently_stalled_tasks where run_id = :'run_failed';

-- TEST: the unresolved one is still listed, and a later call still leaves it alone
select is(pgflow.requeue_stalled_tasks(), 0, 'a later call requeues nothing');
select is(count(*)::int, 1, 'the unresolved task is still listed')
from pgflow.permanently_stalled_tasks where run_id = :'run_open';

select * from finish();
rollback;

begin;
select plan(6);

-- The view pgflow.permanently_stalled_tasks is the alert for tasks whose worker died on
-- them again and again: the tasks requeue_stalled_tasks gave up on. Once an operator resolves such a task (complete_task or fail_task, as the view's
-- comment advises) it must leave the alert list, or the alert never clears.
-- SETUP: three runs of a one-step flow, each task at the requeue limit and stalled again.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 1, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_done from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_failed from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_open from pgflow.start_flow('stall', '{}'::jsonb) \gset
update pgflow.step_tasks set requeued_count = 3;
select count(*) from pgflow_tests.read_and_start('stall', 1, 10);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'requeue_stalled_tasks gives up on all three tasks');
select is(count(*)::int, 3, 'all three are listed as permanently stalled')
from pgflow.permanently_stalled_tasks;

-- TEST: resolving by complete_task / fail_task removes the task from the alert list
select pgflow.complete_task(:'run_done', 'only', 0, '"fixed by hand"'::jsonb);
select pgflow.fail_task(:'run_failed', 'only', 0, 'given up by the operator');
select is(status, 'completed', 'precondition: the completed task is completed')
from pgflow.step_tasks where run_id = :'run_done';
select is(count(*)::int, 0, 'a task completed by the operator is no longer listed')
from pgflow.permanently_stalled_tasks where run_id = :'run_done';
select is(count(*)::int, 0, 'a task failed by the operator is no longer listed')
from pgflow.permanently_stalled_tasks where run_id = :'run_failed';

-- TEST: the unresolved one is still listed
select is(count(*)::int, 1, 'the unresolved task is still listed')
from pgflow.permanently_stalled_tasks where run_id = :'run_open';

select * from finish();
rollback;

begin;
select plan(8);

-- SETUP: map flow over 4 elements, all tasks started an hour ago (timeout 60 s). Then:
-- task 0 completed, task 1 failed, task 2 queued again (as after a retry), task 3 still
-- started. Rows are adjusted directly so that every timestamp is old.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 3, timeout => 60);
select pgflow.add_step('stall', 'items', step_type => 'map');
select run_id as run_id from pgflow.start_flow('stall', '[1, 2, 3, 4]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 1, 10);
select pgflow_tests.backdate_started_tasks(interval '1 hour');
select pgflow.complete_task(:'run_id', 'items', 0, '"done"'::jsonb);
update pgflow.step_tasks
set status = 'failed', failed_at = now() - interval '59 minutes', error_message = 'boom'
where run_id = :'run_id' and task_index = 1;
update pgflow.step_tasks
set status = 'queued', started_at = null
where run_id = :'run_id' and task_index = 2;

-- TEST: only the started task is requeued
select is(pgflow.requeue_stalled_tasks(), 1, 'only the one started task is requeued');
select is(status || '/' || requeued_count, 'completed/0', 'completed task untouched')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 0;
select is(status || '/' || requeued_count, 'failed/0', 'failed task untouched')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;
select is(status || '/' || requeued_count, 'queued/0', 'queued task untouched')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;
select is(status || '/' || requeued_count, 'queued/1', 'started task 3 is requeued once')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 3;
select ok(last_requeued_at is null, 'completed task has no last_requeued_at')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 0;
select ok(permanently_stalled_at is null, 'no task is marked permanently stalled')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;

-- TEST: a second call finds nothing
select is(pgflow.requeue_stalled_tasks(), 0, 'second call requeues nothing');

select * from finish();
rollback;

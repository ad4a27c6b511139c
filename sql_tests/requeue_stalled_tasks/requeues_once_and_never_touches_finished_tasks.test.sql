begin;
select plan(16);

-- Repeated calls requeue a stalled task exactly once, and a call never touches a task that
-- completed or failed meanwhile; late reports of the dead worker change nothing. (The same
-- with two sessions racing: tests/integration/test_requeue_stalled_tasks_races.py.)
-- SETUP: map over 3 elements, timeout 10 s (stall after 40 s); all three tasks started.
select pgflow_tests.reset_db();
select pgflow.create_flow('late_reports', max_attempts => 3, timeout => 10);
select pgflow.add_step('late_reports', 'items', step_type => 'map');
select run_id as run_id from pgflow.start_flow('late_reports', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('late_reports', 2, 3);
select pgflow_tests.backdate_started_tasks(interval '45 seconds');

-- TEST: the late report of task 0 arrives before requeue_stalled_tasks, which leaves it alone
select pgflow.complete_task(:'run_id', 'items', 0, '"late but fine"'::jsonb);
select pgflow.fail_task(:'run_id', 'items', 1, 'late failure');
select is(pgflow.requeue_stalled_tasks(), 1, 'only the still-started task 2 is requeued');
select is(status || '/' || requeued_count, 'completed/0', 'task 0 stays completed, not requeued')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 0;
select is(output, '"late but fine"'::jsonb, 'task 0 keeps its output')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 0;
select is(status || '/' || requeued_count, 'queued/0', 'task 1 (queued for retry by fail_task) is not requeued')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;

-- TEST: two calls in a row requeue task 2 once: one counter step, one visible message
select is(pgflow.requeue_stalled_tasks(), 0, 'the second call finds nothing');
select is(status || '/' || requeued_count, 'queued/1', 'task 2 requeued exactly once')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;
select ok(pgflow_tests.message_vt('late_reports', message_id) <= clock_timestamp(), 'task 2 message visible')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;
select is(pgflow_tests.queue_count('late_reports', 'q'), 2::bigint, 'queue holds only the messages of tasks 1 and 2');

-- TEST: a late complete_task for the requeued task (status queued) changes nothing
select pgflow.complete_task(:'run_id', 'items', 2, '"from the dead worker"'::jsonb);
select is(status || '/' || requeued_count, 'queued/1', 'late complete of a requeued task is ignored')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;
select is(remaining_tasks, 2, 'step remaining_tasks not decremented by the ignored report')
from pgflow.step_states where run_id = :'run_id' and step_slug = 'items';
select ok(pgflow_tests.message_exists('late_reports', message_id, 'q'), 'task 2 message still in the queue')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;

-- TEST: a late fail_task for the requeued task changes nothing either (no error stored,
-- no retry delay put on the message the next worker should receive)
select pgflow.fail_task(:'run_id', 'items', 2, 'late failure from the dead worker');
select is(status || '/' || requeued_count || '/' || attempts_count, 'queued/1/1',
          'late fail of a requeued task is ignored')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;
select ok(error_message is null, 'the late error is not stored on the task')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;
select ok(pgflow_tests.message_vt('late_reports', message_id) <= clock_timestamp(),
          'task 2 message is still visible (no retry delay)')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 2;

-- TEST: the requeued task then runs normally and the run completes
select pgflow_tests.make_visible('late_reports');
select count(*) from pgflow_tests.read_and_start('late_reports', 2, 3);
select pgflow.complete_task(:'run_id', 'items', 1, '"retried"'::jsonb);
select pgflow.complete_task(:'run_id', 'items', 2, '"recovered"'::jsonb);
select is(status, 'completed', 'run completed') from pgflow.runs where run_id = :'run_id';
select is(output, '{"items": ["late but fine", "retried", "recovered"]}'::jsonb, 'map output in task order')
from pgflow.runs where run_id = :'run_id';

select * from finish();
rollback;

begin;
select plan(8);

-- A task left permanently stalled by a version before 0.2.0 is still started with its
-- message archived (the current requeue_stalled_tasks fails such a task instead, and leaves
-- the legacy ones alone). If fail_task then schedules a retry (attempts left), the task must
-- still be deliverable: a task 'queued' with no message can never be started again and its
-- run hangs silently.
-- SETUP: max_attempts 5; the task stalled with requeued_count at the limit and was stamped
-- permanently stalled, message archived (the legacy state, written directly).
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 5, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select message_id as old_msg from pgflow.step_tasks where run_id = :'run_id' \gset
update pgflow.step_tasks set requeued_count = 3;
select count(*) from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
update pgflow.step_tasks set permanently_stalled_at = now() where run_id = :'run_id';
select pgmq.archive('stall', :'old_msg'::bigint);

-- TEST: requeue_stalled_tasks neither requeues nor fails the legacy task
select is(pgflow.requeue_stalled_tasks(), 0, 'requeue_stalled_tasks requeues nothing');
select is(status, 'started', 'precondition: the legacy task is still started')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: after fail_task (the resolution the view comment suggests) the run is not stuck:
-- the task is retried with a fresh message a worker can receive
select is(status, 'queued', 'fail_task retries the task (attempts left)')
from pgflow.fail_task(:'run_id', 'only', 0, 'operator: give up');
select ok(message_id <> :'old_msg'::bigint and pgflow_tests.message_exists('stall', message_id, 'q'),
          'the queued task has a fresh message in the queue')
from pgflow.step_tasks where run_id = :'run_id';
select ok(permanently_stalled_at is null, 'the retried task is no longer permanently stalled')
from pgflow.step_tasks where run_id = :'run_id';
select is((select count(*)::int from pgflow.permanently_stalled_tasks), 0, 'the view lists nothing');

-- TEST: a worker receives the retry and the run completes
select pgflow_tests.make_visible('stall');
select is(count(*)::int, 1, 'a worker starts the retried task')
from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow.complete_task(:'run_id', 'only', 0, '"ok"'::jsonb);
select is(status, 'completed', 'the run completes')
from pgflow.runs where run_id = :'run_id';

select * from finish();
rollback;

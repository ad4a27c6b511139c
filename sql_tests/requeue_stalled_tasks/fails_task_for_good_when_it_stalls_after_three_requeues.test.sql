begin;
select plan(17);

-- SETUP: one-step flow (when_exhausted fail, 10 attempts); the task is started and stalls
-- four times in a row.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select message_id as msg_id from pgflow.step_tasks where run_id = :'run_id' \gset

-- TEST: stalls 1..3 are requeued, each time with the same message made visible again
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'first stall is requeued');
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'second stall is requeued');
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'third stall is requeued');
select is(requeued_count, 3, 'requeued_count is 3 after three requeues')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: the fourth stall is not requeued: the task is given up on and fails for good,
-- without spending its 6 remaining attempts
select is(count(*)::int, 1, 'the task can be started a fourth time')
from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'fourth stall: nothing requeued (returns 0)');
select is(status, 'failed', 'the task is failed')
from pgflow.step_tasks where run_id = :'run_id';
select is(error_message,
          'Task stalled: its worker stopped without reporting 4 times (3 requeues); given up',
          'error_message says why')
from pgflow.step_tasks where run_id = :'run_id';
select ok(failed_at = now() and permanently_stalled_at = now(),
          'failed_at and permanently_stalled_at are stamped now')
from pgflow.step_tasks where run_id = :'run_id';
select is(requeued_count || '/' || attempts_count, '3/4',
          'requeued_count stays 3; attempts_count counts the four starts (no retry)')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: when_exhausted fail: the step and the run fail
select is(status || '/' || error_message,
          'failed/Task stalled: its worker stopped without reporting 4 times (3 requeues); given up',
          'the step is failed with the same error')
from pgflow.step_states where run_id = :'run_id';
select ok(status = 'failed' and failed_at = now(), 'the run is failed')
from pgflow.runs where run_id = :'run_id';

-- TEST: a failed task is not an alert: the view lists only older unresolved tasks
select is((select count(*)::int from pgflow.permanently_stalled_tasks), 0,
          'pgflow.permanently_stalled_tasks lists nothing');

-- TEST: the message is archived, exactly once, and no longer in the queue
select ok(not pgflow_tests.message_exists('stall', :'msg_id', 'q'), 'message removed from the queue');
select is(pgflow_tests.queue_count('stall', 'q'), 0::bigint, 'the queue is empty');
select is(pgflow_tests.queue_count('stall', 'a'), 1::bigint, 'exactly one archived message');
select ok(pgflow_tests.message_exists('stall', :'msg_id', 'a'), 'the archived message is the task message');

select * from finish();
rollback;

begin;
select plan(13);

-- SETUP: one-step flow; the task is started and stalls four times in a row.
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

-- TEST: the fourth stall is not requeued but marked permanently stalled
select is(count(*)::int, 1, 'the task can be started a fourth time')
from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'fourth stall: nothing requeued (returns 0)');
select ok(permanently_stalled_at is not null, 'permanently_stalled_at is stamped')
from pgflow.step_tasks where run_id = :'run_id';
select is(status, 'started', 'status stays started')
from pgflow.step_tasks where run_id = :'run_id';
select is(requeued_count, 3, 'requeued_count stays 3')
from pgflow.step_tasks where run_id = :'run_id';
select is(attempts_count, 4, 'attempts_count counts the four starts')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: the message is archived, exactly once, and no longer in the queue
select ok(not pgflow_tests.message_exists('stall', :'msg_id', 'q'), 'message removed from the queue');
select is(pgflow_tests.queue_count('stall', 'a'), 1::bigint, 'exactly one archived message');
select ok(pgflow_tests.message_exists('stall', :'msg_id', 'a'), 'the archived message is the task message');

select * from finish();
rollback;

begin;
select plan(12);

-- SETUP: one-step flow with the default flow timeout (60 s); the task is started by a
-- worker that then disappears, and the start is backdated 95 s (> 60 + 30).
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{"x": 1}'::jsonb) \gset
select msg_id as msg_id from pgflow_tests.read_and_start('stall', 1, 1) \gset
select pgflow_tests.backdate_started_tasks(interval '95 seconds');

-- TEST: requeue_stalled_tasks reports one requeued task
select is(pgflow.requeue_stalled_tasks(), 1, 'requeue_stalled_tasks returns 1 for one stalled task');

-- TEST: the task is back to queued, ownership cleared, counters updated
select is(status, 'queued', 'stalled task is queued again')
from pgflow.step_tasks where run_id = :'run_id';
select ok(started_at is null, 'started_at is cleared')
from pgflow.step_tasks where run_id = :'run_id';
select ok(last_worker_id is null, 'last_worker_id is cleared')
from pgflow.step_tasks where run_id = :'run_id';
select is(requeued_count, 1, 'requeued_count is 1')
from pgflow.step_tasks where run_id = :'run_id';
select ok(last_requeued_at is not null, 'last_requeued_at is stamped')
from pgflow.step_tasks where run_id = :'run_id';
select is(attempts_count, 1, 'attempts_count is not changed by the requeue')
from pgflow.step_tasks where run_id = :'run_id';
select ok(permanently_stalled_at is null, 'permanently_stalled_at stays NULL')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: the same message is kept and made visible now
select is(message_id, :'msg_id'::bigint, 'the task keeps its message id')
from pgflow.step_tasks where run_id = :'run_id';
select ok(pgflow_tests.message_vt('stall', :'msg_id') <= clock_timestamp(),
          'the message is visible again');
select is(pgflow_tests.queue_count('stall', 'q'), 1::bigint, 'exactly one message in the queue');

-- TEST: run and step are untouched
select is((select status from pgflow.step_states where run_id = :'run_id') ||
          '/' || (select status from pgflow.runs where run_id = :'run_id'),
          'started/started', 'step_state and run stay started');

select * from finish();
rollback;

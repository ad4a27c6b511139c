begin;
select plan(19);

-- A worker is killed mid-task four times on the same task: requeued three times with the
-- same message, then given up on: the task fails for good (1 of its 5 attempts left
-- unspent), its message archived once, and, when_exhausted being fail, its run fails.
-- SETUP: one-step flow, timeout 10 s (stall after 40 s).
select pgflow_tests.reset_db();
select pgflow.create_flow('killed_often', max_attempts => 5, timeout => 10);
select pgflow.add_step('killed_often', 'only');
select run_id as run_id from pgflow.start_flow('killed_often', '{}'::jsonb) \gset
select message_id as msg_id from pgflow.step_tasks where run_id = :'run_id' \gset

-- TEST: kills 1..3: each time the task is requeued with the same message
select is(msg_id, :'msg_id'::bigint, 'kill 1: worker receives the task message')
from pgflow_tests.read_and_start('killed_often', 2, 1);
select pgflow_tests.backdate_started_tasks(interval '45 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'kill 1: requeued');
select is(msg_id, :'msg_id'::bigint, 'kill 2: the same message is delivered again')
from pgflow_tests.read_and_start('killed_often', 2, 1);
select pgflow_tests.backdate_started_tasks(interval '45 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'kill 2: requeued');
select is(msg_id, :'msg_id'::bigint, 'kill 3: the same message is delivered again')
from pgflow_tests.read_and_start('killed_often', 2, 1);
select pgflow_tests.backdate_started_tasks(interval '45 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'kill 3: requeued');

-- TEST: kill 4: the task is given up on and fails for good instead
select is(msg_id, :'msg_id'::bigint, 'kill 4: the same message is delivered again')
from pgflow_tests.read_and_start('killed_often', 2, 1);
select pgflow_tests.backdate_started_tasks(interval '45 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'kill 4: not requeued any more');
select is(status || '/' || requeued_count || '/' || attempts_count, 'failed/3/4',
          'task failed, requeued 3 times, 4 attempts (no fifth)')
from pgflow.step_tasks where run_id = :'run_id';
select is(error_message,
          'Task stalled: its worker stopped without reporting 4 times (3 requeues); given up',
          'the task says why it failed')
from pgflow.step_tasks where run_id = :'run_id';
select ok(permanently_stalled_at is not null, 'permanently_stalled_at is stamped')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: no message lost or duplicated: the one message is archived exactly once
select is(pgflow_tests.queue_count('killed_often', 'q'), 0::bigint, 'queue is empty (nothing cycles forever)');
select is(pgflow_tests.queue_count('killed_often', 'a'), 1::bigint, 'exactly one archived message');
select ok(pgflow_tests.message_exists('killed_often', :'msg_id', 'a'), 'the archived message is the task message');

-- TEST: the stall is not silent: the step and the run fail (when_exhausted fail)
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'only'),
  'failed', 'the step is failed');
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');
select has_view('pgflow', 'permanently_stalled_tasks', 'view pgflow.permanently_stalled_tasks exists');
select is(
  (select count(*)::int from pgflow.permanently_stalled_tasks where run_id = :'run_id'),
  0, 'the failed task is not listed in pgflow.permanently_stalled_tasks (nothing left to resolve)');

-- TEST: later calls change nothing
select pgflow_tests.backdate_started_tasks(interval '1 hour');
select is(pgflow.requeue_stalled_tasks() + pgflow.requeue_stalled_tasks(), 0, 'later calls requeue nothing');

select * from finish();
rollback;

begin;
select plan(10);

-- SETUP: two runs of a one-step flow, each task requeued 3 times and stalled again.
-- run_given: a first call gives the task up (it fails, stamped permanently stalled).
-- run_legacy: stamped by an earlier version and left started, message archived (written
-- directly; the current version never leaves a task in that state).
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_given from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as run_legacy from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 1, 2);
update pgflow.step_tasks set requeued_count = 3, last_requeued_at = now() - interval '100 seconds';
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
update pgflow.step_tasks set permanently_stalled_at = now() - interval '1 hour'
where run_id = :'run_legacy';
select pgmq.archive('stall', (select message_id from pgflow.step_tasks where run_id = :'run_legacy'));
select is(pgflow.requeue_stalled_tasks(), 0, 'first call requeues nothing (limit reached)');
select is(status, 'failed', 'precondition: the first call gave the run_given task up')
from pgflow.step_tasks where run_id = :'run_given';
select permanently_stalled_at as given_at from pgflow.step_tasks where run_id = :'run_given' \gset
select permanently_stalled_at as legacy_at from pgflow.step_tasks where run_id = :'run_legacy' \gset
select count(*) as events_before from pgflow.run_events \gset

-- TEST: later calls, even much later, leave both tasks alone
select pgflow_tests.backdate_started_tasks(interval '1 day');
select is(pgflow.requeue_stalled_tasks(), 0, 'second call returns 0');
select is(pgflow.requeue_stalled_tasks(), 0, 'third call returns 0');
select is(permanently_stalled_at, :'given_at'::timestamptz, 'the given-up task is not re-stamped')
from pgflow.step_tasks where run_id = :'run_given';
select is(status || '/' || requeued_count || '/' || attempts_count, 'failed/3/1',
          'the given-up task stays failed, not requeued nor retried')
from pgflow.step_tasks where run_id = :'run_given';
select is(permanently_stalled_at, :'legacy_at'::timestamptz, 'the legacy task is not re-stamped')
from pgflow.step_tasks where run_id = :'run_legacy';
select is(status || '/' || requeued_count || '/' || attempts_count, 'started/3/1',
          'the legacy task stays started: neither requeued nor given up on')
from pgflow.step_tasks where run_id = :'run_legacy';
select is((select count(*) from pgflow.run_events), :'events_before'::bigint,
          'later calls record no event');
select is(pgflow_tests.queue_count('stall', 'a'), 2::bigint, 'each message archived once, not twice');

select * from finish();
rollback;

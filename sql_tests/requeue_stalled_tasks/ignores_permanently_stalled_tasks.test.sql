begin;
select plan(6);

-- SETUP: a task that has already been requeued 3 times and stalls again; a first call
-- marks it permanently stalled.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select pgflow_tests.read_and_start('stall', 1, 1);
update pgflow.step_tasks set requeued_count = 3, last_requeued_at = now() - interval '100 seconds'
where run_id = :'run_id';
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'first call requeues nothing (limit reached)');
select permanently_stalled_at as stamped_at from pgflow.step_tasks where run_id = :'run_id' \gset

-- TEST: later calls, even much later, leave the task alone
select pgflow_tests.backdate_started_tasks(interval '1 day');
select is(pgflow.requeue_stalled_tasks(), 0, 'second call returns 0');
select is(pgflow.requeue_stalled_tasks(), 0, 'third call returns 0');
select is(permanently_stalled_at, :'stamped_at'::timestamptz, 'permanently_stalled_at is not re-stamped')
from pgflow.step_tasks where run_id = :'run_id';
select is(status || '/' || requeued_count, 'started/3', 'status and requeued_count unchanged')
from pgflow.step_tasks where run_id = :'run_id';
select is(pgflow_tests.queue_count('stall', 'a'), 1::bigint, 'message archived once, not twice');

select * from finish();
rollback;

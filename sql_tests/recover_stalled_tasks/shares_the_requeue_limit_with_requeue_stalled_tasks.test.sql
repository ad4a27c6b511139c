begin;
select plan(8);

-- SETUP: one task that stalls four times; requeue_stalled_tasks() and its deprecated alias
-- recover_stalled_tasks() are called alternately.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset

-- TEST: both names do the same job on the same counter
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.recover_stalled_tasks(), 1, 'stall 1 recovered by recover_stalled_tasks');
select is(pgflow.requeue_stalled_tasks(), 0, 'requeue_stalled_tasks right after finds nothing more');
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'stall 2 requeued by requeue_stalled_tasks');
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.recover_stalled_tasks(), 1, 'stall 3 recovered by recover_stalled_tasks');
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.recover_stalled_tasks(), 0, 'stall 4: limit of 3 requeues reached');
select is(status || '/' || requeued_count || '/' || attempts_count, 'failed/3/4',
          'recover_stalled_tasks gives the task up: failed with requeued_count 3, 4 attempts')
from pgflow.step_tasks where run_id = :'run_id';
select ok(permanently_stalled_at is not null, 'task is marked permanently stalled')
from pgflow.step_tasks where run_id = :'run_id';
select is(status, 'failed', 'its run fails (when_exhausted fail)')
from pgflow.runs where run_id = :'run_id';

select * from finish();
rollback;

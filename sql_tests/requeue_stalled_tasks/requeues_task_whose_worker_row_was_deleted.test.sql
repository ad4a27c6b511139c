begin;
select plan(3);

-- SETUP: the dead worker that started the task is pruned from pgflow.workers before its
-- task stalls: last_worker_id becomes NULL through ON DELETE SET NULL.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select pgflow_tests.read_and_start('stall', 1, 1);
delete from pgflow.workers;
select pgflow_tests.backdate_started_tasks(interval '95 seconds');

-- TEST: stall detection is per task, independent of the worker registry
select ok(last_worker_id is null, 'precondition: the task lost its worker reference')
from pgflow.step_tasks where run_id = :'run_id';
select is(pgflow.requeue_stalled_tasks(), 1, 'the task is requeued although its worker row is gone');
select is(status, 'queued', 'task queued again') from pgflow.step_tasks where run_id = :'run_id';

select * from finish();
rollback;

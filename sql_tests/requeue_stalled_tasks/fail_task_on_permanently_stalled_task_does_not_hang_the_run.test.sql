begin;
select plan(4);

-- A permanently stalled task has its message archived. If fail_task then schedules a retry
-- (attempts left), the task must still be deliverable: either a message for it is in the
-- queue, or the failure is final. A task 'queued' with no message can never be started
-- again and its run hangs silently.
-- SETUP: max_attempts 5; the task stalls with requeued_count at the limit.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 5, timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
update pgflow.step_tasks set requeued_count = 3;
select count(*) from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'requeue_stalled_tasks gives up on the task');
select ok(permanently_stalled_at is not null, 'precondition: task permanently stalled')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: after fail_task (the resolution the view comment suggests) the run is not stuck
select pgflow.fail_task(:'run_id', 'only', 0, 'operator: give up');
select ok(
  t.status = 'failed'
  or (t.status = 'queued' and pgflow_tests.message_exists('stall', t.message_id, 'q')),
  'the task is either failed for good or queued with a message a worker can receive')
from pgflow.step_tasks as t where t.run_id = :'run_id';
select ok(
  r.status <> 'started'
  or exists (select 1 from pgflow.step_tasks t
             where t.run_id = r.run_id and t.status = 'queued'
               and pgflow_tests.message_exists('stall', t.message_id, 'q')),
  'the run is finished or has a deliverable task (no silent hang)')
from pgflow.runs as r where r.run_id = :'run_id';

select * from finish();
rollback;

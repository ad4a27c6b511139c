begin;
select plan(5);

-- SETUP: flow timeout 60 s; the task started 80 s ago, i.e. still inside 60 + 30 s.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select msg_id as msg_id from pgflow_tests.read_and_start('stall', 1, 1) \gset
select pgflow_tests.backdate_started_tasks(interval '80 seconds');

-- TEST: nothing is requeued
select is(pgflow.requeue_stalled_tasks(), 0, 'returns 0 while the task is inside timeout + 30 s');
select is(status, 'started', 'task stays started')
from pgflow.step_tasks where run_id = :'run_id';
select is(requeued_count, 0, 'requeued_count stays 0')
from pgflow.step_tasks where run_id = :'run_id';
select ok(pgflow_tests.message_vt('stall', :'msg_id') > clock_timestamp(),
          'the message stays invisible');

-- TEST: a freshly started task (no backdating) is not touched either
select pgflow_tests.backdate_started_tasks(interval '0 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'returns 0 for a task started just now');

select * from finish();
rollback;

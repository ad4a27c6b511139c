begin;
select plan(7);

-- SETUP: sequential flow (first -> second -> last); the first task stalls.
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select run_id as run_id from pgflow.start_flow('sequential', '{"n": 1}'::jsonb) \gset
select pgflow_tests.read_and_start('sequential', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'the stalled first task is requeued');

-- TEST: another worker picks it up through the ordinary read + start_tasks path
select is(
  (select step_slug from pgflow_tests.read_and_start('sequential', 1, 1,
     '22222222-2222-2222-2222-222222222222'::uuid)),
  'first', 'a second worker can start the requeued task');
select is(status || '/' || attempts_count, 'started/2', 'task started again, attempts_count 2')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first';
select is(last_worker_id, '22222222-2222-2222-2222-222222222222'::uuid, 'owned by the second worker')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first';

-- TEST: the run proceeds to completion normally
select pgflow.complete_task(:'run_id', 'first', 0, '1'::jsonb);
select pgflow_tests.poll_and_complete('sequential', '2'::jsonb);
select pgflow_tests.poll_and_complete('sequential', '3'::jsonb);
select is(status, 'completed', 'the run completes') from pgflow.runs where run_id = :'run_id';
select is(output, '{"last": 3}'::jsonb, 'run output from the leaf step') from pgflow.runs where run_id = :'run_id';
select is(requeued_count, 1, 'requeued_count of the first task stays 1 after completion')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first';

select * from finish();
rollback;

begin;
select plan(12);

-- A killed worker's task is requeued after the step's own timeout + 30 s, not the flow's:
-- with the flow timeout a task of a short step stayed stuck for the flow timeout.
-- SETUP: flow timeout 60 s; map step timeout 5 s over [1, 2, 3]. Worker A reads all three
-- messages, starts them, completes tasks 0 and 2, and is killed holding task 1.
select pgflow_tests.reset_db();
select pgflow.create_flow('killed_map', timeout => 60);
select pgflow.add_step('killed_map', 'items', step_type => 'map', timeout => 5);
select run_id as run_id from pgflow.start_flow('killed_map', '[1, 2, 3]'::jsonb) \gset
select is(count(*)::int, 3, 'worker A starts all three tasks')
from pgflow_tests.read_and_start('killed_map', 2, 3, 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid);
select pgflow.complete_task(:'run_id', 'items', 0, '10'::jsonb);
select pgflow.complete_task(:'run_id', 'items', 2, '30'::jsonb);

-- TEST: start_tasks leased the message for step timeout + 2 s, not flow timeout + 2 s
select ok(pgflow_tests.message_vt('killed_map', message_id) < clock_timestamp() + interval '10 seconds',
          'message of task 1 is leased for about step timeout + 2 s')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;

-- TEST: 30 s after the start (inside 5 + 30 s) requeue_stalled_tasks leaves task 1 alone
select pgflow_tests.backdate_started_tasks(interval '30 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'not stalled yet 30 s after start');

-- TEST: 40 s after the start (far below flow timeout 60 + 30 s) task 1 is requeued
select pgflow_tests.backdate_started_tasks(interval '40 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'task 1 requeued after step timeout 5 s + 30 s');
select is(status || '/' || requeued_count, 'queued/1', 'task 1 queued, requeued_count 1')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;
select is(string_agg(status, ',' order by task_index), 'completed,queued,completed',
          'completed siblings are untouched')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: worker B restarts task 1 right away (the message is visible) and the run completes
select is(task_index, 1, 'worker B receives task 1')
from pgflow_tests.read_and_start('killed_map', 2, 3, 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid);
select is(attempts_count, 2, 'attempts_count is 2')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;
select is(requeued_count, 1, 'requeued_count stays 1')
from pgflow.step_tasks where run_id = :'run_id' and task_index = 1;
select pgflow.complete_task(:'run_id', 'items', 1, '20'::jsonb);
select is(status, 'completed', 'the run completes') from pgflow.runs where run_id = :'run_id';
select is(output, '{"items": [10, 20, 30]}'::jsonb, 'map output in task order')
from pgflow.runs where run_id = :'run_id';
select is(pgflow_tests.queue_count('killed_map', 'q'), 0::bigint, 'no message left in the queue');

select * from finish();
rollback;

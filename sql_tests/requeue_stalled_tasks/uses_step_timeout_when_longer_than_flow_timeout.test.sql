begin;
select plan(4);

-- SETUP: flow timeout 60 s, step timeout 300 s: the task may legitimately run up to 300 s,
-- so it is only stalled after 330 s (upstream would already requeue it after 90 s).
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'slow', timeout => 300);
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select pgflow_tests.read_and_start('stall', 1, 1);

-- TEST: 200 s after start (past flow timeout + 30 s, inside step timeout) nothing happens
select pgflow_tests.backdate_started_tasks(interval '200 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'a task inside its own step timeout is not requeued');
select is(status, 'started', 'task still started after 200 s')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: 340 s after start it is requeued
select pgflow_tests.backdate_started_tasks(interval '340 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'requeued after step timeout 300 s + 30 s');
select is(status, 'queued', 'task queued again after 340 s')
from pgflow.step_tasks where run_id = :'run_id';

select * from finish();
rollback;

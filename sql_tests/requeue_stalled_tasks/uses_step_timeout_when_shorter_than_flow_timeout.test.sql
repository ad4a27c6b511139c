begin;
select plan(6);

-- SETUP: flow timeout 60 s, step timeout 5 s: effective timeout 5 s, stall after 35 s.
-- (Upstream uses the flow timeout only; we use coalesce(step, flow): compat/UPSTREAM.md,
-- deliberate difference 1.)
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'quick', timeout => 5);
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select pgflow_tests.read_and_start('stall', 1, 1);

-- TEST: 25 s after start the task is not stalled yet
select pgflow_tests.backdate_started_tasks(interval '25 seconds');
select is(pgflow.requeue_stalled_tasks(), 0, 'not requeued 25 s after start (5 + 30 s not reached)');
select is(status, 'started', 'task still started after 25 s')
from pgflow.step_tasks where run_id = :'run_id';

-- TEST: 40 s after start (well before 60 + 30 s) it is requeued
select pgflow_tests.backdate_started_tasks(interval '40 seconds');
select is(pgflow.requeue_stalled_tasks(), 1, 'requeued 40 s after start: step timeout 5 s + 30 s');
select is(status, 'queued', 'task queued again')
from pgflow.step_tasks where run_id = :'run_id';
select is(requeued_count, 1, 'requeued_count is 1')
from pgflow.step_tasks where run_id = :'run_id';
select is(pgflow_tests.visible_count('stall'), 1::bigint, 'its message is visible');

select * from finish();
rollback;

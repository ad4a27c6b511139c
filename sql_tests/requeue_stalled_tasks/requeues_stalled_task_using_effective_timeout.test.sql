begin;
select plan(8);

-- SETUP: flow timeout 60 s; step a has timeout 5 s (stalls after 35 s), step b inherits
-- the flow timeout (stalls after 90 s). Both started 50 s ago.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'a', timeout => 5);
select pgflow.add_step('stall', 'b');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 1, 10);
select pgflow_tests.backdate_started_tasks(interval '50 seconds');

-- TEST: only the step with the short timeout is requeued
select is(pgflow.requeue_stalled_tasks(), 1, 'requeue_stalled_tasks returns 1');
select is(status || '/' || requeued_count, 'queued/1', 'step a task requeued')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'a';
select ok(started_at is null and last_worker_id is null, 'step a task ownership cleared')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'a';
select is(attempts_count, 1, 'attempts_count unchanged')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'a';
select is(status || '/' || requeued_count, 'started/0', 'step b task (flow timeout) untouched')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'b';
select is(pgflow_tests.visible_count('stall'), 1::bigint, 'exactly the requeued message is visible');

-- TEST: past 90 s step b is requeued too
select pgflow_tests.backdate_started_tasks(interval '95 seconds', 'b');
select is(pgflow.requeue_stalled_tasks(), 1, 'step b requeued after 60 + 30 s');
select is(status || '/' || requeued_count, 'queued/1', 'step b task requeued')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'b';

select * from finish();
rollback;

begin;
-- The pg_cron 1.4 fallback NOTICE is asserted in tests/integration/test_setup_requeue_stalled_tasks_cron.py.
set local client_min_messages = warning;
select plan(3);

-- SETUP: a stalled task and the cron job.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select pgflow.setup_requeue_stalled_tasks_cron();
select command as job_command from cron.job where jobname = 'pgflow_requeue_stalled_tasks' \gset

-- TEST: running the scheduled command (as pg_cron would) recovers the task
select lives_ok(:'job_command', 'the scheduled command runs without error');
select is(status || '/' || requeued_count, 'queued/1', 'the stalled task was requeued by the job command')
from pgflow.step_tasks where run_id = :'run_id';
select is(pgflow_tests.visible_count('stall'), 1::bigint, 'its message is visible again');

select * from finish();
rollback;

begin;
-- The pg_cron 1.4 fallback NOTICE is asserted in tests/integration/test_setup_requeue_stalled_tasks_cron.py.
set local client_min_messages = warning;
select plan(3);

-- SETUP: the job already exists with one schedule.
select pgflow.setup_requeue_stalled_tasks_cron('*/5 * * * *');

-- TEST: calling again replaces the schedule instead of adding a second job
select pgflow.setup_requeue_stalled_tasks_cron('*/2 * * * *');
select is(count(*)::int, 1, 'still exactly one job after a second call')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select is(schedule, '*/2 * * * *', 'the job has the new schedule')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select pgflow.setup_requeue_stalled_tasks_cron('0 * * * *');
select is(schedule, '0 * * * *', 'a third call replaces it again')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';

select * from finish();
rollback;

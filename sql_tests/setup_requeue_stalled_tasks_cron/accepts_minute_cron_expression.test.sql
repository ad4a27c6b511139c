begin;
select plan(3);

-- SETUP: start without the job.
select cron.unschedule(jobid) from cron.job where jobname = 'pgflow_requeue_stalled_tasks';

-- TEST: a standard 5-field cron expression is used as given
select lives_ok($$select pgflow.setup_requeue_stalled_tasks_cron('*/5 * * * *')$$,
                'a minute cron expression is accepted');
select is(schedule, '*/5 * * * *', 'the schedule is the given expression')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select is(count(*)::int, 1, 'exactly one job')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';

select * from finish();
rollback;

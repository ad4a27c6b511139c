begin;
select plan(4);

-- SETUP: start without the job.
select cron.unschedule(jobid) from cron.job where jobname = 'pgflow_requeue_stalled_tasks';

-- TEST: 'N minutes' becomes a cron expression (pg_cron's interval syntax is seconds only)
select pgflow.setup_requeue_stalled_tasks_cron('5 minutes');
select is(schedule, '*/5 * * * *', '5 minutes runs every fifth minute')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select pgflow.setup_requeue_stalled_tasks_cron('1 minute');
select is(schedule, '* * * * *', '1 minute runs every minute')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select is(count(*)::int, 1, 'still exactly one job')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select throws_ok(
  $$ select pgflow.setup_requeue_stalled_tasks_cron('90 minutes') $$,
  '22023', null, 'minute intervals over 59 are rejected');

select * from finish();
rollback;

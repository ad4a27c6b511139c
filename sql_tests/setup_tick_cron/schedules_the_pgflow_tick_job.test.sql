begin;
-- The pg_cron 1.4 fallback NOTICE is not asserted here.
set local client_min_messages = warning;
select plan(8);

-- SETUP: start without the job; pg_cron < 1.5 has no second-based schedules.
select cron.unschedule(jobid) from cron.job where jobname = 'pgflow_tick';
select case
  when string_to_array(split_part(extversion, '-', 1), '.')::int[] < array[1, 5] then 'old'
  else 'new' end as cron_kind
from pg_extension where extname = 'pg_cron' \gset

-- TEST: the default ('5 seconds') schedules one job pgflow_tick running select pgflow.tick()
select alike(pgflow.setup_tick_cron(), 'Scheduled pgflow_tick (job %) with schedule %', 'the result names the job');
select is(count(*)::int, 1, 'exactly one job pgflow_tick') from cron.job where jobname = 'pgflow_tick';
select is(command, 'select pgflow.tick()', 'the job runs select pgflow.tick()') from cron.job where jobname = 'pgflow_tick';
select is(schedule, case :'cron_kind' when 'old' then '* * * * *' else '5 seconds' end,
          'every 5 seconds (every minute on pg_cron < 1.5)') from cron.job where jobname = 'pgflow_tick';

-- TEST: calling again replaces the schedule; minute intervals become cron expressions
select pgflow.setup_tick_cron('2 minutes');
select is(schedule, '*/2 * * * *', '2 minutes: */2 * * * *') from cron.job where jobname = 'pgflow_tick';
select is(count(*)::int, 1, 'still one job') from cron.job where jobname = 'pgflow_tick';
select throws_ok($$select pgflow.setup_tick_cron('  ')$$, '22023', null, 'a blank interval raises 22023');

-- TEST: it does not touch the stalled-task job
select pgflow.setup_requeue_stalled_tasks_cron('*/5 * * * *');
select pgflow.setup_tick_cron('* * * * *');
select is(
  (select string_agg(jobname || ': ' || schedule, ', ' order by jobname) from cron.job
   where jobname in ('pgflow_tick', 'pgflow_requeue_stalled_tasks')),
  'pgflow_requeue_stalled_tasks: */5 * * * *, pgflow_tick: * * * * *',
  'two separate jobs');

select * from finish();
rollback;

begin;
-- The pg_cron 1.4 fallback NOTICE is asserted in tests/integration/test_setup_requeue_stalled_tasks_cron.py.
set local client_min_messages = warning;
select plan(7);

-- SETUP: start without the job. pg_cron < 1.5 (this toolchain: 1.4) has no second-based
-- schedules, so seconds fall back to every minute; pg_cron >= 1.5 keeps the interval.
select cron.unschedule(jobid) from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select case
  when string_to_array(split_part(extversion, '-', 1), '.')::int[] < array[1, 5] then 'old'
  else 'new' end as cron_kind
from pg_extension where extname = 'pg_cron' \gset

-- TEST: the default ('15 seconds') is accepted
select isnt(pgflow.setup_requeue_stalled_tasks_cron(), null, 'default call returns a text');
select is(count(*)::int, 1, 'exactly one job pgflow_requeue_stalled_tasks')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select is(schedule, case :'cron_kind' when 'old' then '* * * * *' else '15 seconds' end,
          'seconds fall back to every minute on pg_cron < 1.5 (kept as is on >= 1.5)')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select ok(command ~ 'pgflow\.(requeue|recover)_stalled_tasks\(\)', 'the job calls requeue_stalled_tasks')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select is(database, current_database()::text, 'the job runs in this database')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';
select ok(active, 'the job is active')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';

-- TEST: any other seconds value behaves the same way
select pgflow.setup_requeue_stalled_tasks_cron('30 seconds');
select is(schedule, case :'cron_kind' when 'old' then '* * * * *' else '30 seconds' end,
          '30 seconds: every minute on pg_cron < 1.5 (kept as is on >= 1.5)')
from cron.job where jobname = 'pgflow_requeue_stalled_tasks';

select * from finish();
rollback;

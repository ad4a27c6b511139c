begin;
-- The pg_cron 1.4 fallback NOTICE is asserted in tests/integration/test_setup_requeue_stalled_tasks_cron.py.
set local client_min_messages = warning;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: pg_cron < 1.5 (this toolchain: 1.4) has no second-based schedules
select case
  when string_to_array(split_part(extversion, '-', 1), '.')::int[] < array[1, 5] then 'old'
  else 'new' end as cron_kind
from pg_extension where extname = 'pg_cron' \gset

-- TEST: 'N minutes' (1 to 59) becomes a cron expression, spaces around it allowed
select is(
  pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '1 minute') like '%with schedule ''* * * * *''',
  true,
  '1 minute: the reply names the schedule * * * * *'
);
select is((select schedule from cron.job where jobname = 'pgflow_test_job'), '* * * * *',
  '1 minute runs every minute');
select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', ' 7 minutes ');
select is((select schedule from cron.job where jobname = 'pgflow_test_job'), '*/7 * * * *',
  ' 7 minutes  runs every seventh minute');
select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '59 minutes');
select is((select schedule from cron.job where jobname = 'pgflow_test_job'), '*/59 * * * *',
  '59 minutes, the largest, runs every 59th minute');

-- TEST: 'N seconds' runs every minute on pg_cron < 1.5 (kept as it is on >= 1.5)
select is(
  pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '20 seconds'),
  (select format('Scheduled pgflow_test_job (job %s) with schedule ''%s''', jobid,
                 case :'cron_kind' when 'old' then '* * * * *' else '20 seconds' end)
   from cron.job where jobname = 'pgflow_test_job'),
  '20 seconds: the reply names the schedule actually used'
);
select is((select schedule from cron.job where jobname = 'pgflow_test_job'),
  case :'cron_kind' when 'old' then '* * * * *' else '20 seconds' end,
  '20 seconds: every minute on pg_cron < 1.5');

select * from finish();
rollback;

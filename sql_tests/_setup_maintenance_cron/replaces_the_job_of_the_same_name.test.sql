begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: the job exists
select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '*/5 * * * *');
select jobid as first_jobid from cron.job where jobname = 'pgflow_test_job' \gset

-- TEST: a second call with another command and schedule replaces it: still one job, the same
-- job id, the new command and schedule
select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 2', '0 3 * * *') as reply \gset
select results_eq(
  $$ select jobid, command, schedule from cron.job where jobname = 'pgflow_test_job' $$,
  format($$ values (%s::bigint, 'select 2'::text, '0 3 * * *'::text) $$, :'first_jobid'),
  'one job, same id, new command and schedule'
);
select is(
  :'reply',
  format('Scheduled pgflow_test_job (job %s) with schedule ''0 3 * * *''', :'first_jobid'),
  'the reply names the same job id and the new schedule'
);

-- TEST: the same call again changes nothing
select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 2', '0 3 * * *');
select results_eq(
  $$ select jobid, command, schedule from cron.job where jobname = 'pgflow_test_job' $$,
  format($$ values (%s::bigint, 'select 2'::text, '0 3 * * *'::text) $$, :'first_jobid'),
  'a repeated call leaves the same single job'
);

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: another job, which must stay as it is
select cron.schedule('pgflow_test_other_job', '0 * * * *', 'select 0');

-- TEST: the job runs the command on the schedule, in this database
select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 42', '*/5 * * * *') as reply \gset
select results_eq(
  $$ select command, schedule, database = current_database(), active from cron.job where jobname = 'pgflow_test_job' $$,
  $$ values ('select 42'::text, '*/5 * * * *'::text, true, true) $$,
  'one active job pgflow_test_job running select 42 every fifth minute in this database'
);

-- TEST: the reply names the job, its id and its schedule
select is(
  :'reply',
  (select format('Scheduled pgflow_test_job (job %s) with schedule ''*/5 * * * *''', jobid)
   from cron.job where jobname = 'pgflow_test_job'),
  'returns "Scheduled pgflow_test_job (job <id>) with schedule ''*/5 * * * *''"'
);

-- TEST: the other job is untouched
select results_eq(
  $$ select command, schedule from cron.job where jobname = 'pgflow_test_other_job' $$,
  $$ values ('select 0'::text, '0 * * * *'::text) $$,
  'the other job keeps its command and schedule'
);

select * from finish();
rollback;

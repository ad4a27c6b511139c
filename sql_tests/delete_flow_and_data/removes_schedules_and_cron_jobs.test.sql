begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '0 * * * *');

-- TEST: deleting the flow removes its schedules and their pg_cron jobs
select pgflow.delete_flow_and_data('sequential');
select is((select count(*)::int from pgflow.schedules), 0, 'schedule rows are gone');
select is((select count(*)::int from cron.job where jobname like 'pgflow_schedule:%'), 0,
  'pg_cron jobs are gone');

select * from finish();
rollback;

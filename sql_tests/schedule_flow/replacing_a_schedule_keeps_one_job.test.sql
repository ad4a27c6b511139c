begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '0 * * * *', '{"v": 1}'::jsonb) as first_job \gset

-- TEST: scheduling again under the same name replaces the schedule (idempotent)
select is(pgflow.schedule_flow('sequential', '30 * * * *', '{"v": 2}'::jsonb), :first_job::bigint,
  'the same pg_cron job is updated');
select is((select count(*)::int from cron.job where jobname = 'pgflow_schedule:sequential'), 1,
  'still one job');
select is((select schedule from cron.job where jobname = 'pgflow_schedule:sequential'), '30 * * * *',
  'the job has the new schedule');
select is((select input from pgflow.schedules where schedule_name = 'sequential'), '{"v": 2}'::jsonb,
  'the row has the new input');

select * from finish();
rollback;

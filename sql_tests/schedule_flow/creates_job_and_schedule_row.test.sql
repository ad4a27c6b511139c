begin;
select plan(6);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');

-- TEST: a schedule is a pgflow.schedules row plus a pg_cron job that starts the flow
select isnt(pgflow.schedule_flow('sequential', '0 * * * *', '{"a": 1}'::jsonb), null::bigint,
  'returns the pg_cron job id');
select is(
  (select schedule from cron.job where jobname = 'pgflow_schedule:sequential'),
  '0 * * * *', 'the cron job has the schedule');
select is(
  (select command from cron.job where jobname = 'pgflow_schedule:sequential'),
  'select pgflow._start_scheduled_flow(''sequential'')', 'the job starts the schedule by name');
select is(
  (select row(flow_slug, schedule, input)::text from pgflow.schedules where schedule_name = 'sequential'),
  row('sequential', '0 * * * *', '{"a": 1}'::jsonb)::text, 'the schedule row holds flow, schedule and input');
select is(
  (select job_id from pgflow.schedules where schedule_name = 'sequential'),
  (select jobid from cron.job where jobname = 'pgflow_schedule:sequential'),
  'the row records the job id');
select pgflow.schedule_flow('sequential', '*/5 * * * *', '{}'::jsonb, schedule_name => 'every_five');
select is(
  (select count(*)::int from pgflow.schedules where flow_slug = 'sequential'), 2,
  'a flow may have several named schedules');

select * from finish();
rollback;

begin;
select plan(1);

-- SETUP: a row as schedule_flow would write it for pg_cron >= 1.5 ('N seconds')
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
insert into pgflow.schedules (schedule_name, flow_slug, schedule, input)
values ('fast', 'sequential', '20 seconds', '{}');

-- TEST: the slot is the current 20-second bucket
select is(pgflow._start_scheduled_flow('fast'),
  pgflow.scheduled_run_id('fast', to_timestamp(floor(extract(epoch from now()) / 20) * 20)),
  'the run id is keyed by the 20-second bucket');

select * from finish();
rollback;

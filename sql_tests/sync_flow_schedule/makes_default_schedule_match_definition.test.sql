begin;
select plan(8);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '0 0 * * *', schedule_name => 'nightly');

-- TEST: created, unchanged, updated, removed, none; the named schedule is never touched
select is(pgflow.sync_flow_schedule('sequential', '0 * * * *', '{"a": 1}'), 'created', 'created');
select is(pgflow.sync_flow_schedule('sequential', '0 * * * *', '{"a": 1}'), 'unchanged', 'unchanged');
select is(pgflow.sync_flow_schedule('sequential', '0 * * * *', '{"a": 2}'), 'updated', 'new input updates');
select is((select schedule from cron.job where jobname = 'pgflow_schedule:sequential'), '0 * * * *',
  'the job has the schedule');
select is(pgflow.sync_flow_schedule('sequential', '5 * * * *', '{"a": 2}'), 'updated', 'new schedule updates');
select is(pgflow.sync_flow_schedule('sequential', null), 'removed', 'no schedule in code removes it');
select is(pgflow.sync_flow_schedule('sequential', null), 'none', 'nothing to remove');
select is((select array_agg(schedule_name) from pgflow.schedules), array['nightly'],
  'named schedules are left alone');

select * from finish();
rollback;

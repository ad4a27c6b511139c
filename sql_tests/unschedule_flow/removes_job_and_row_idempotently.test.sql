begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '0 * * * *');
select pgflow.schedule_flow('sequential', '0 0 * * *', schedule_name => 'nightly');

-- TEST: the default schedule goes, the named one stays; a second call returns false
select is(pgflow.unschedule_flow('sequential'), true, 'returns true when it removed something');
select is((select count(*)::int from cron.job where jobname = 'pgflow_schedule:sequential'), 0,
  'the job is gone');
select is((select array_agg(schedule_name) from pgflow.schedules), array['nightly'],
  'only the named schedule is left');
select is(pgflow.unschedule_flow('sequential'), false, 'a second call removes nothing');
select is(pgflow.unschedule_flow('sequential', 'nightly'), true, 'named schedules are removed by name');

select * from finish();
rollback;

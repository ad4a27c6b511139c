begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: text arguments that would create a table if they reached a SQL parser
select pgflow_tests.setup_flow('sequential');
select $p$x'); create table public.pwned (); --$p$ as payload \gset

-- TEST: schedule text, schedule names and flow slugs are values, never SQL
select throws_ok(format('select pgflow.schedule_flow(%L, %L)', 'sequential', :'payload'),
  null, 'a hostile schedule is refused by pg_cron as a schedule');
select throws_ok(format('select pgflow.schedule_flow(%L, %L, %L, %L)', 'sequential', '0 * * * *', '{}', :'payload'),
  '22023', null, 'a hostile schedule name is refused before pg_cron is called');
select throws_ok(format('select pgflow.schedule_flow(%L, %L)', :'payload', '0 * * * *'),
  '23503', null, 'a hostile flow slug is an unknown flow');
select throws_ok(format('select pgflow.sync_flow_schedule(%L, %L)', :'payload', '0 * * * *'),
  '23503', null, 'sync_flow_schedule: a hostile flow slug is an unknown flow');
select is(pgflow.unschedule_flow('sequential', :'payload'), false,
  'unschedule_flow: a hostile schedule name matches nothing');
select is(pgflow._start_scheduled_flow(:'payload'), null,
  '_start_scheduled_flow: a hostile schedule name starts nothing');
select throws_ok(format('select pgflow.setup_requeue_stalled_tasks_cron(%L)', :'payload'),
  null, 'setup_requeue_stalled_tasks_cron: a hostile interval is refused by pg_cron as a schedule');

-- TEST: the job command of a valid schedule quotes the schedule name
select pgflow.schedule_flow('sequential', '0 * * * *');
select is((select command from cron.job where jobname = 'pgflow_schedule:sequential'),
  $$select pgflow._start_scheduled_flow('sequential')$$, 'the job command is a quoted literal');

-- TEST: nothing was injected
select is(to_regclass('public.pwned'), null, 'no payload ran as SQL');
select is((select count(*)::int from cron.job where command like '%pwned%'), 0, 'no job carries the payload');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP: pg_cron dropped inside this rolled-back transaction
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
drop extension pg_cron;

-- TEST: schedule_flow and unschedule_flow name what to install
select throws_ok($$ select pgflow.schedule_flow('sequential', '0 * * * *') $$,
  '42704', 'pg_cron is not installed in this database', 'schedule_flow needs pg_cron');
select throws_ok($$ select pgflow.unschedule_flow('sequential') $$,
  '42704', 'pg_cron is not installed in this database', 'unschedule_flow needs pg_cron');

select * from finish();
rollback;

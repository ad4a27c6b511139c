begin;
select plan(8);
select pgflow_tests.reset_db();

-- TEST: a NULL or blank interval: 22023
select throws_ok(
  $$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', null) $$,
  '22023', 'cron_interval must be a cron expression or an interval such as ''15 seconds''',
  'a NULL interval raises 22023');
select throws_ok(
  $$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '   ') $$,
  '22023', 'cron_interval must be a cron expression or an interval such as ''15 seconds''',
  'a blank interval raises 22023');

-- TEST: minutes out of 1..59: 22023 quoting the interval
select throws_ok(
  $$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '0 minutes') $$,
  '22023', 'cron_interval ''0 minutes'': minute intervals must be 1 to 59 minutes',
  '0 minutes raises 22023');
select throws_ok(
  $$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '60 minutes') $$,
  '22023', 'cron_interval ''60 minutes'': minute intervals must be 1 to 59 minutes',
  '60 minutes raises 22023');
select is((select count(*)::int from cron.job where jobname = 'pgflow_test_job'), 0, 'no job was scheduled');

-- SETUP: pg_cron removed inside this transaction (rolled back at the end)
drop extension pg_cron cascade;
create function pg_temp.error_hint(sql text) returns text language plpgsql as $f$
declare v_hint text;
begin
  execute sql;
  return null;
exception when others then
  get stacked diagnostics v_hint = pg_exception_hint;
  return v_hint;
end $f$;

-- TEST: without pg_cron: 42704, and the hint says to run the command from another scheduler
select throws_ok(
  $$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', '*/5 * * * *') $$,
  '42704', 'pg_cron is not installed in this database',
  'raises 42704 without pg_cron');
select throws_ok(
  $$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select 1', null) $$,
  '42704', 'pg_cron is not installed in this database',
  'pg_cron is checked before the interval');
select is(
  pg_temp.error_hint($$ select pgflow._setup_maintenance_cron('pgflow_test_job', 'select my_maintenance()', '*/5 * * * *') $$),
  'Add pg_cron to shared_preload_libraries and run CREATE EXTENSION pg_cron in the database named by '
  'cron.database_name, or run select my_maintenance() from your own scheduler (pgflow-worker also '
  'runs it every few seconds).',
  'the hint names the command to run from another scheduler'
);

select * from finish();
rollback;

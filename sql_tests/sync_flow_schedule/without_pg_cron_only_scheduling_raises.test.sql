begin;
select plan(2);

-- SETUP: pg_cron dropped inside this rolled-back transaction
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
drop extension pg_cron;

-- TEST: a flow without a schedule syncs fine; a flow with one gets the clear error
select is(pgflow.sync_flow_schedule('sequential', null), 'none', 'nothing to do without a schedule');
select throws_ok($$ select pgflow.sync_flow_schedule('sequential', '0 * * * *') $$,
  '42704', 'pg_cron is not installed in this database', 'a schedule needs pg_cron');

select * from finish();
rollback;

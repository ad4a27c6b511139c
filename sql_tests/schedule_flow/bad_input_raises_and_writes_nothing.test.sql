begin;
select plan(7);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('root_map');
select pgflow_tests.setup_flow('sequential');

-- TEST: each bad input raises a clear error; no schedule row and no job is written
select throws_ok($$ select pgflow.schedule_flow('missing', '0 * * * *') $$,
  '23503', 'Flow ''missing'' does not exist', 'unknown flow');
select throws_ok($$ select pgflow.schedule_flow('sequential', '   ') $$,
  '22023', null, 'empty schedule');
select throws_ok($$ select pgflow.schedule_flow('sequential', '0 * * * *', null) $$,
  '23502', null, 'NULL input');
select throws_ok($$ select pgflow.schedule_flow('root_map', '0 * * * *', '{}'::jsonb) $$,
  '22023', 'Flow ''root_map'' has root map steps but the scheduled input is not an array (got object)',
  'non-array input to a root map');
select throws_ok($$ select pgflow.schedule_flow('sequential', '0 * * * *', '{}', 'bad name; drop') $$,
  '22023', null, 'hostile schedule name');
select is((select count(*)::int from pgflow.schedules), 0, 'no schedule row written');
select is((select count(*)::int from cron.job where jobname like 'pgflow_schedule:%'), 0,
  'no pg_cron job written');

select * from finish();
rollback;

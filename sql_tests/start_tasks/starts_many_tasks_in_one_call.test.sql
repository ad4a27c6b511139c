begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with four elements
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3, 4]'::jsonb) \gset

-- TEST: all read messages are started by one call
select is(
  (select count(*)::int from pgflow_tests.read_and_start('root_map', 1, 10)),
  4,
  'one record per message id'
);
select is(
  (select count(*)::int from pgflow.step_tasks
   where run_id = :'run_id' and status = 'started' and attempts_count = 1),
  4,
  'every task is started with attempts_count 1'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t
   where t.run_id = :'run_id'
     and pgflow_tests.message_vt_seconds('root_map', t.message_id) > 60),
  4,
  'every message got the timeout + 2 s lease'
);

select * from finish();
rollback;

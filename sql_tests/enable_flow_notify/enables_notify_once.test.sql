begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
delete from pgmq.notify_insert_throttle where queue_name = 'sequential';

-- TEST: the first call enables pgmq's trigger with the throttle given
select is(pgflow.enable_flow_notify('sequential', 100), true, 'the first call enables NOTIFY');
select is((select throttle_interval_ms from pgmq.notify_insert_throttle where queue_name = 'sequential'),
  100, 'with the throttle given (milliseconds)');
select is((select count(*)::int from pg_trigger
           where tgrelid = 'pgmq.q_sequential'::regclass and tgname = 'trigger_notify_queue_insert_listeners'),
  1, 'the queue table has pgmq''s NOTIFY trigger');

-- TEST: later calls change nothing
select is(pgflow.enable_flow_notify('sequential', 500), false, 'a second call finds it enabled');
select is((select throttle_interval_ms from pgmq.notify_insert_throttle where queue_name = 'sequential'),
  100, 'the first throttle is kept');

-- TEST: the worker role may call it
select is(pgflow_tests.sqlstate_as('pgflow_worker', $$select pgflow.enable_flow_notify('sequential')$$),
  '00000', 'pgflow_worker may enable NOTIFY without pgmq privileges');

select * from finish();
rollback;

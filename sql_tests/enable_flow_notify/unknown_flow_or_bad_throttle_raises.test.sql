begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a pgmq queue that is no flow's
select pgflow_tests.setup_flow('sequential');
select pgmq.create('not_a_flow');

-- TEST
select throws_ok($$ select pgflow.enable_flow_notify('not_a_flow') $$,
  '23503', 'Flow ''not_a_flow'' does not exist', 'a queue without a flow is refused');
select throws_ok($$ select pgflow.enable_flow_notify('x''); drop table pgflow.runs; --') $$,
  '23503', null, 'a hostile name is an unknown flow');
select throws_ok($$ select pgflow.enable_flow_notify('sequential', -1) $$, '22023', null, 'negative throttle');
select throws_ok($$ select pgflow.enable_flow_notify('sequential', null) $$, '22023', null, 'NULL throttle');
select is((select count(*)::int from pgmq.notify_insert_throttle where queue_name in ('not_a_flow')),
  0, 'nothing was enabled');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP: a flow with a message in its queue
select pgflow_tests.reset_db();
select pgflow.create_flow('idem_flow');
select pgmq.send('idem_flow', '{"keep": "me"}'::jsonb);

-- TEST: calling create_flow again neither fails nor recreates the queue
select lives_ok($$ select pgflow.create_flow('idem_flow') $$, 'a second create_flow does not raise');
select is((select count(*)::int from pgmq.list_queues() where queue_name = 'idem_flow'), 1,
  'there is still one queue named idem_flow');
select is(pgflow_tests.queue_count('idem_flow'), 1::bigint,
  'the message already in the queue is kept');

select * from finish();
rollback;

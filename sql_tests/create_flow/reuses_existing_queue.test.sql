begin;
select plan(3);

-- SETUP: a queue with the flow's name exists before the flow
select pgflow_tests.reset_db();
select pgmq.create('prequeued_flow');
select pgmq.send('prequeued_flow', '{"old": true}'::jsonb);

-- TEST: create_flow adopts the queue instead of failing
select lives_ok($$ select pgflow.create_flow('prequeued_flow') $$,
  'create_flow succeeds when the queue already exists');
select is((select count(*)::int from pgflow.flows where flow_slug = 'prequeued_flow'), 1,
  'the flow row is inserted');
select is(pgflow_tests.queue_count('prequeued_flow'), 1::bigint,
  'the existing queue (with its message) is kept, not recreated');

select * from finish();
rollback;

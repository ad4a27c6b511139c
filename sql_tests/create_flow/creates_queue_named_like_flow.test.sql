begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('queued_flow');

-- TEST: one pgmq queue named exactly like the flow, with its queue and archive tables
select ok(pgflow_tests.queue_exists('queued_flow'), 'a pgmq queue named queued_flow exists');
select is((select count(*)::int from pgmq.list_queues()), 1, 'exactly one queue was created');
select ok(to_regclass('pgmq.q_queued_flow') is not null and to_regclass('pgmq.a_queued_flow') is not null,
  'the queue table pgmq.q_queued_flow and archive pgmq.a_queued_flow exist');

select * from finish();
rollback;

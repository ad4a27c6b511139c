begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a pgmq queue that is no flow's, with a message
select pgmq.create('not_a_flow');
select pgmq.send('not_a_flow', '{"secret": true}');

-- TEST: only the queue of an existing flow is read
select throws_ok($$ select * from pgflow.read_tasks('not_a_flow', 30, 1) $$,
  '23503', 'Flow ''not_a_flow'' does not exist', 'a queue without a flow is refused');
select throws_ok($$ select * from pgflow.read_tasks('missing', 30, 1) $$,
  '23503', 'Flow ''missing'' does not exist', 'an unknown flow is refused');
select throws_ok($$ select * from pgflow.read_tasks('x''); drop table pgflow.runs; --', 30, 1) $$,
  '23503', null, 'a hostile name is an unknown flow');
select is(pgflow_tests.visible_count('not_a_flow'), 1::bigint, 'the other queue was not read');
select ok(to_regclass('pgflow.runs') is not null, 'pgflow.runs still exists');

select * from finish();
rollback;

begin;
select plan(4);

-- SETUP: a completed task leaves a message in the archive
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{}');
select pgflow_tests.poll_and_complete('sequential');
select is(pgflow_tests.queue_count('sequential', 'a'), 1::bigint, 'precondition: one archived message');

-- TEST: the pgmq queue and its archive are dropped
select pgflow.delete_flow_and_data('sequential');
select ok(not pgflow_tests.queue_exists('sequential'), 'the queue is no longer listed by pgmq');
select is(to_regclass('pgmq.q_sequential'), null, 'the queue table is dropped');
select is(to_regclass('pgmq.a_sequential'), null, 'the archive table is dropped');

select * from finish();
rollback;

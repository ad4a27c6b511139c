begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{}');

-- TEST: pgflow_worker reads through the function without any pgmq privilege
select ok(not has_table_privilege('pgflow_worker', 'pgmq.q_sequential', 'select'),
  'pgflow_worker has no privilege on the queue table');
select is(pgflow_tests.sqlstate_as('pgflow_worker', $$select * from pgflow.read_tasks('sequential', 30, 1)$$),
  '00000', 'pgflow_worker reads the flow queue through read_tasks');
select is(pgflow_tests.visible_count('sequential'), 0::bigint, 'the message was reserved');

select * from finish();
rollback;

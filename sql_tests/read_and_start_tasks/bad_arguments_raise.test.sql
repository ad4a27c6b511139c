begin;
select plan(5);
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('root_map');
select pgflow_tests.ensure_worker('root_map') as worker \gset

-- TEST: unknown flow, bad vt or qty and a NULL worker raise; nothing is read
select throws_ok(format($$select * from pgflow.read_and_start_tasks('nope', %L, 1, 30)$$, :'worker'),
  '23503', 'Flow ''nope'' does not exist', 'an unknown flow raises foreign_key_violation');
select throws_ok(format($$select * from pgflow.read_and_start_tasks('root_map', %L, 1, -1)$$, :'worker'),
  '22023', 'visibility_timeout must be a non-negative number of seconds (got -1)', 'a negative visibility_timeout raises');
select throws_ok(format($$select * from pgflow.read_and_start_tasks('root_map', %L, null, 30)$$, :'worker'),
  '22023', 'qty must be a non-negative number of messages (got NULL)', 'a NULL qty raises');
select throws_ok($$select * from pgflow.read_and_start_tasks('root_map', null, 1, 30)$$,
  '22004', 'worker_id may not be NULL', 'a NULL worker_id raises');

-- TEST: the worker role may call it (it has no pgmq privilege)
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  format($$select * from pgflow.read_and_start_tasks('root_map', %L, 1, 30)$$, :'worker')),
  '00000', 'pgflow_worker reads and starts tasks');

select * from finish();
rollback;

begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: two flows whose queue tables the upstream worker role may not touch
select pgflow.create_flow('queued_flow');
select pgflow.create_flow('other_flow');
revoke all on pgmq.q_queued_flow, pgmq.q_other_flow from pgflow_upstream_worker;
select is(
  has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'select'),
  false,
  'before: no SELECT on the queue table'
);

-- TEST: SELECT and UPDATE on pgmq.q_queued_flow, which pgmq.read_with_poll needs
select pgflow._grant_queue_to_upstream_worker('queued_flow');
select results_eq(
  $$ select has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'select'),
            has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'update') $$,
  $$ values (true, true) $$,
  'SELECT and UPDATE on the queue table'
);

-- TEST: nothing more on it, nothing on its archive
select results_eq(
  $$ select has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'insert'),
            has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'delete'),
            has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'truncate') $$,
  $$ values (false, false, false) $$,
  'no INSERT, DELETE or TRUNCATE on the queue table'
);
select is(
  has_table_privilege('pgflow_upstream_worker', 'pgmq.a_queued_flow', 'select'),
  false,
  'no SELECT on the archive table'
);

-- TEST: the queue of another flow is left alone
select is(
  has_table_privilege('pgflow_upstream_worker', 'pgmq.q_other_flow', 'select'),
  false,
  'the other flow''s queue table is not granted'
);

select * from finish();
rollback;

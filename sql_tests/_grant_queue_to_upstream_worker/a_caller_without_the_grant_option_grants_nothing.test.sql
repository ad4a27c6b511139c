begin;
-- PostgreSQL's WARNING "no privileges were granted" is expected below: not shown.
set local client_min_messages = error;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a flow queue the upstream worker role may not touch
select pgflow.create_flow('queued_flow');
revoke all on pgmq.q_queued_flow from pgflow_upstream_worker;

-- SETUP: two callers that may run the function and read the queue table: one without and
-- one with the grant option on it
create role queue_reader nologin;
create role queue_granter nologin;
grant usage on schema pgflow to queue_reader, queue_granter;
grant execute on function pgflow._grant_queue_to_upstream_worker(text) to queue_reader, queue_granter;
grant usage on schema pgmq to queue_reader, queue_granter;
grant select on pgmq.meta to queue_reader, queue_granter;
grant select, update on pgmq.q_queued_flow to queue_reader;
grant select, update on pgmq.q_queued_flow to queue_granter with grant option;
select relacl::text as acl_before from pg_class where oid = 'pgmq.q_queued_flow'::regclass \gset

-- TEST: without the grant option: no error (PostgreSQL only warns), nothing granted
select is(
  pgflow_tests.sqlstate_as('queue_reader', $$select pgflow._grant_queue_to_upstream_worker('queued_flow')$$),
  '00000',
  'the call succeeds'
);
select is(
  has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'select'),
  false,
  'the role got no SELECT'
);
select is(
  (select relacl::text from pg_class where oid = 'pgmq.q_queued_flow'::regclass),
  :'acl_before',
  'the queue table''s privileges are unchanged'
);

-- TEST: with the grant option the same call grants
select is(
  pgflow_tests.sqlstate_as('queue_granter', $$select pgflow._grant_queue_to_upstream_worker('queued_flow')$$),
  '00000',
  'the call succeeds'
);
select results_eq(
  $$ select has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'select'),
            has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'update') $$,
  $$ values (true, true) $$,
  'SELECT and UPDATE granted by the caller that holds the grant option'
);

select * from finish();
rollback;

begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: no role pgflow_upstream_worker (its privileges go with it)
select pgflow.create_flow('queued_flow');
drop owned by pgflow_upstream_worker;
drop role pgflow_upstream_worker;
select relacl::text as acl_before from pg_class where oid = 'pgmq.q_queued_flow'::regclass \gset

-- TEST: the role must exist: 42704 naming it
select throws_ok(
  $$ select pgflow._grant_upstream_worker() $$,
  '42704',
  'role "pgflow_upstream_worker" does not exist',
  'raises 42704 naming the role'
);
select is(
  (select relacl::text from pg_class where oid = 'pgmq.q_queued_flow'::regclass),
  :'acl_before',
  'the queue table''s privileges are unchanged'
);

select * from finish();
rollback;

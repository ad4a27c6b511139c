begin;
select plan(4);
select pgflow_tests.reset_db();

-- TEST: no queue of that name: nothing to grant, no error, no queue created
select lives_ok(
  $$ select pgflow._grant_queue_to_upstream_worker('no_such_flow') $$,
  'a slug without a queue raises nothing'
);
select is(to_regclass('pgmq.q_no_such_flow'), null, 'no queue table was created');

-- SETUP: a flow queue, then no role pgflow_upstream_worker (its privileges go with it)
select pgflow.create_flow('queued_flow');
drop owned by pgflow_upstream_worker;
drop role pgflow_upstream_worker;
select relacl::text as acl_before from pg_class where oid = 'pgmq.q_queued_flow'::regclass \gset

-- TEST: without the role: no error, the queue table's privileges are unchanged
select lives_ok(
  $$ select pgflow._grant_queue_to_upstream_worker('queued_flow') $$,
  'without the role it raises nothing'
);
select is(
  (select relacl::text from pg_class where oid = 'pgmq.q_queued_flow'::regclass),
  :'acl_before',
  'the queue table''s privileges are unchanged'
);

select * from finish();
rollback;

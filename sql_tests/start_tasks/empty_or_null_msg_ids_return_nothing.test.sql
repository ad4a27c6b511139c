begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.ensure_worker('sequential');

-- TEST: empty and NULL arrays start nothing and do not fail
select is(
  (select count(*)::int from pgflow.start_tasks('sequential', array[]::bigint[],
     '11111111-1111-1111-1111-111111111111'::uuid)),
  0,
  'an empty msg_ids array returns no record'
);
select is(
  (select count(*)::int from pgflow.start_tasks('sequential', null::bigint[],
     '11111111-1111-1111-1111-111111111111'::uuid)),
  0,
  'a NULL msg_ids array returns no record'
);
select is(
  (select count(*)::int from pgflow.start_tasks('sequential', array[999999]::bigint[],
     '11111111-1111-1111-1111-111111111111'::uuid)),
  0,
  'an unknown message id returns no record'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id'),
  'queued',
  'nothing was started'
);

select * from finish();
rollback;

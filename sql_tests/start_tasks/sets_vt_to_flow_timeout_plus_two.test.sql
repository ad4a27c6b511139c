begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: flow timeout 60 (default); the worker read with a 1 s visibility timeout
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('sequential', 1, 1);

-- TEST: start_tasks extended the message lease to timeout + 2 seconds, in the same call
select cmp_ok(
  pgflow_tests.message_vt_seconds('sequential', pgflow_tests.task_msg_id(:'run_id', 'first')),
  '>',
  60::numeric,
  'vt is about 62 s from now (lower bound: more than the read vt of 1 s and than the timeout)'
);
select cmp_ok(
  pgflow_tests.message_vt_seconds('sequential', pgflow_tests.task_msg_id(:'run_id', 'first')),
  '<=',
  62::numeric,
  'vt is about 62 s from now (upper bound)'
);

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: flow timeout 60; step "fast" overrides it with 10, step "slow" inherits
select pgflow.create_flow('timeouts', timeout => 60);
select pgflow.add_step('timeouts', 'fast', timeout => 10);
select pgflow.add_step('timeouts', 'slow');
select run_id from pgflow.start_flow('timeouts', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('timeouts', 1, 10);

-- TEST: per-task vt uses the step timeout when set
select cmp_ok(
  pgflow_tests.message_vt_seconds('timeouts', pgflow_tests.task_msg_id(:'run_id', 'fast')),
  '>', 10::numeric,
  'step timeout 10 -> vt about 12 s (lower bound)');
select cmp_ok(
  pgflow_tests.message_vt_seconds('timeouts', pgflow_tests.task_msg_id(:'run_id', 'fast')),
  '<=', 12::numeric,
  'step timeout 10 -> vt about 12 s (upper bound)');

-- TEST: and the flow timeout otherwise
select cmp_ok(
  pgflow_tests.message_vt_seconds('timeouts', pgflow_tests.task_msg_id(:'run_id', 'slow')),
  '>', 60::numeric,
  'inherited flow timeout 60 -> vt about 62 s (lower bound)');
select cmp_ok(
  pgflow_tests.message_vt_seconds('timeouts', pgflow_tests.task_msg_id(:'run_id', 'slow')),
  '<=', 62::numeric,
  'inherited flow timeout 60 -> vt about 62 s (upper bound)');

select * from finish();
rollback;

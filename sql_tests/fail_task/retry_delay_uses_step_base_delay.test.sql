begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow base_delay 5 (default of create_flow), step base_delay 3, flow default
-- for another step
select pgflow.create_flow('step_delay', max_attempts => 3);
select pgflow.add_step('step_delay', 'custom', base_delay => 3);
select pgflow.add_step('step_delay', 'inherit');
select run_id from pgflow.start_flow('step_delay', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'custom');
select pgflow_tests.start_and_fail_task(:'run_id', 'inherit');

-- TEST: the step override wins
select cmp_ok(
  pgflow_tests.message_vt_seconds('step_delay', pgflow_tests.task_msg_id(:'run_id', 'custom')),
  '>', 4::numeric,
  'step base_delay 3 -> first retry after about 6 s (lower bound)');
select cmp_ok(
  pgflow_tests.message_vt_seconds('step_delay', pgflow_tests.task_msg_id(:'run_id', 'custom')),
  '<=', 6::numeric,
  'step base_delay 3 -> first retry after about 6 s (upper bound)');

-- TEST: the flow value (create_flow default 5) applies otherwise
select cmp_ok(
  pgflow_tests.message_vt_seconds('step_delay', pgflow_tests.task_msg_id(:'run_id', 'inherit')),
  '>', 8::numeric,
  'inherited base_delay 5 -> first retry after about 10 s');

select * from finish();
rollback;

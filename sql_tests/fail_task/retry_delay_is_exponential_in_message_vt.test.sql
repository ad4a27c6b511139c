begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: 4 attempts, base_delay 5 s
select pgflow.create_flow('backoff', max_attempts => 4, base_delay => 5);
select pgflow.add_step('backoff', 'work');
select run_id from pgflow.start_flow('backoff', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'work') as msg_id \gset

-- TEST: after attempt 1 the message is hidden for floor(5 * 2^1) = 10 s
select pgflow_tests.start_and_fail_task(:'run_id', 'work');
select cmp_ok(pgflow_tests.message_vt_seconds('backoff', :msg_id::bigint), '>', 8::numeric,
  'after attempt 1 the retry waits about 10 s (lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('backoff', :msg_id::bigint), '<=', 10::numeric,
  'after attempt 1 the retry waits about 10 s (upper bound)');

-- TEST: after attempt 2: 20 s
select pgflow_tests.make_visible('backoff');
select pgflow_tests.start_and_fail_task(:'run_id', 'work');
select cmp_ok(pgflow_tests.message_vt_seconds('backoff', :msg_id::bigint), '>', 18::numeric,
  'after attempt 2 the retry waits about 20 s (lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('backoff', :msg_id::bigint), '<=', 20::numeric,
  'after attempt 2 the retry waits about 20 s (upper bound)');

-- TEST: after attempt 3: 40 s
select pgflow_tests.make_visible('backoff');
select pgflow_tests.start_and_fail_task(:'run_id', 'work');
select cmp_ok(pgflow_tests.message_vt_seconds('backoff', :msg_id::bigint), '>', 38::numeric,
  'after attempt 3 the retry waits about 40 s (lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('backoff', :msg_id::bigint), '<=', 40::numeric,
  'after attempt 3 the retry waits about 40 s (upper bound)');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: one step, 3 attempts, base_delay 5; its task started once (attempts_count 1)
select pgflow.create_flow('retry_flow', max_attempts => 3, base_delay => 5);
select pgflow.add_step('retry_flow', 'only');
select run_id from pgflow.start_flow('retry_flow', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'only');
select pgflow_tests.task_msg_id(:'run_id', 'only') as msg_id \gset

-- TEST: outcome retried
select results_eq(
  format($$select outcome, reason from pgflow._fail_task(%L, 'only', 0, 'boom', null)$$, :'run_id'),
  $$values ('retried'::text, null::text)$$,
  'a failure with attempts left is retried'
);

-- TEST: the task is queued again, keeping its error and attempts_count
select results_eq(
  format($$select status, attempts_count, error_message, started_at, failed_at, message_id
           from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  format($$values ('queued'::text, 1, 'boom'::text, null::timestamptz, null::timestamptz, %s::bigint)$$, :msg_id),
  'queued, attempts_count 1, error kept, same message'
);

-- TEST: the message reappears after calculate_retry_delay(5, 1) = 10 s
select cmp_ok(pgflow_tests.message_vt_seconds('retry_flow', :msg_id), '>', 5::numeric, 'hidden for about 10 s (lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('retry_flow', :msg_id), '<=', 10::numeric, 'hidden for about 10 s (upper bound)');

select * from finish();
rollback;

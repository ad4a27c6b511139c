begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: max_attempts 2
select pgflow.create_flow('two_tries', max_attempts => 2);
select pgflow.add_step('two_tries', 'work');
select run_id from pgflow.start_flow('two_tries', '{}'::jsonb) \gset

-- TEST: the first failure retries
select pgflow_tests.start_and_fail_task(:'run_id', 'work', 0, 'try 1');
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id'),
  'queued',
  'attempt 1 of 2 fails -> retried'
);

-- TEST: the second failure is final
select pgflow_tests.make_visible('two_tries');
select pgflow_tests.start_and_fail_task(:'run_id', 'work', 0, 'try 2');
select results_eq(
  format($$select status, attempts_count, error_message from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, 2, 'try 2'::text)$$,
  'attempt 2 of 2 fails -> the task is failed (max_attempts counts the first try)'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a flow with 3 attempts
select pgflow.create_flow('retry_flow', max_attempts => 3);
select pgflow.add_step('retry_flow', 'work');
select run_id from pgflow.start_flow('retry_flow', '{}'::jsonb) \gset
create temp table returned as
  select * from pgflow_tests.start_and_fail_task(:'run_id', 'work', 0, 'first failure');

-- TEST: the task goes back to the queue with the error kept
select results_eq(
  format($$select status, attempts_count, started_at, failed_at, error_message
           from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('queued'::text, 1, null::timestamptz, null::timestamptz, 'first failure'::text)$$,
  'retry: task queued, started_at and failed_at NULL, error_message stored, attempts kept'
);
select is((select status from returned), 'queued', 'fail_task returns the requeued task row');

-- TEST: step and run keep going
select results_eq(
  format($$select status, remaining_tasks, error_message, failed_at
           from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1, null::text, null::timestamptz)$$,
  'the step stays started with no error'
);
select results_eq(
  format($$select status, failed_at from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::timestamptz)$$,
  'the run stays started'
);

select * from finish();
rollback;

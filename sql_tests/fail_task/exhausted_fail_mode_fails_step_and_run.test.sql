begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last, 1 attempt
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'first') as msg_id \gset
create temp table returned as
  select * from pgflow_tests.start_and_fail_task(:'run_id', 'first', 0, 'fatal error');

-- TEST: task failed
select results_eq(
  format($$select status, attempts_count, error_message, failed_at is not null, output
           from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, 1, 'fatal error'::text, true, null::jsonb)$$,
  'the task is failed with failed_at and the error message'
);
select is((select status from returned), 'failed', 'fail_task returns the failed task row');

-- TEST: step failed
select results_eq(
  format($$select status, error_message, failed_at is not null, skip_reason
           from pgflow.step_states where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('failed'::text, 'fatal error'::text, true, null::text)$$,
  'the step is failed with the error message'
);

-- TEST: run failed, remaining_steps untouched
select results_eq(
  format($$select status, failed_at is not null, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true, 3)$$,
  'the run is failed and remaining_steps is unchanged'
);

-- TEST: message archived, nothing downstream
select ok(pgflow_tests.message_exists('sequential', :msg_id::bigint, 'a'), 'the task message is archived');
select results_eq(
  format($$select step_slug, status, started_at is null, cancelled_at is not distinct from now()
           from pgflow.step_states where run_id = %L and step_slug <> 'first' order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'cancelled'::text, true, true), ('second', 'cancelled', true, true)$$,
  'dependent steps are never started: the run failure cancels them (cancelled_at now)'
);

select * from finish();
rollback;

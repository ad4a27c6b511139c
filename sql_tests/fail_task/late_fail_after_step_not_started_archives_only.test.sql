begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root map of 2 with 3 attempts; task 0 started; the step was skipped meanwhile
select pgflow.create_flow('late_fail', max_attempts => 3);
select pgflow.add_step('late_fail', 'items', step_type => 'map');
select run_id from pgflow.start_flow('late_fail', '[1, 2]'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'items', 0) as msg_id \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
update pgflow.step_states
set status = 'skipped', skip_reason = 'condition_unmet', skipped_at = now(), remaining_tasks = null
where run_id = :'run_id' and step_slug = 'items';

-- TEST: the late fail only archives the message
select results_eq(
  format($$select status, error_message, attempts_count
           from pgflow.fail_task(%L, 'items', 0, 'late')$$, :'run_id'),
  $$values ('started'::text, null::text, 1)$$,
  'fail_task returns the task untouched'
);
select ok(pgflow_tests.message_exists('late_fail', :msg_id::bigint, 'a'), 'the message is archived (no retry)');
select results_eq(
  format($$select status, error_message from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('skipped'::text, null::text)$$,
  'the step state is not modified'
);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1)$$,
  'the run is not modified'
);

select * from finish();
rollback;

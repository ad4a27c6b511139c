begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: optional (when_exhausted skip) and needed -> last; 1 attempt
select pgflow.create_flow('skip_flow', max_attempts => 1);
select pgflow.add_step('skip_flow', 'optional', when_exhausted => 'skip');
select pgflow.add_step('skip_flow', 'needed');
select pgflow.add_step('skip_flow', 'last', array['optional', 'needed']);
select run_id from pgflow.start_flow('skip_flow', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'optional') as msg_id \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'optional', 0, 'optional broke');

-- TEST: the task fails, the step is skipped with handler_failed and keeps the error
select results_eq(
  format($$select status, error_message from pgflow.step_tasks
           where run_id = %L and step_slug = 'optional'$$, :'run_id'),
  $$values ('failed'::text, 'optional broke'::text)$$,
  'the task is failed with its error'
);
select results_eq(
  format($$select status, skip_reason, error_message, skipped_at is not null, remaining_tasks, failed_at
           from pgflow.step_states where run_id = %L and step_slug = 'optional'$$, :'run_id'),
  $$values ('skipped'::text, 'handler_failed'::text, 'optional broke'::text, true, null::int, null::timestamptz)$$,
  'the step is skipped (handler_failed), error_message kept, remaining_tasks NULL'
);

-- TEST: the run continues, counting the skip once
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 2)$$,
  'the run keeps running and remaining_steps is decremented by one'
);
select is(
  (select remaining_deps from pgflow.step_states where run_id = :'run_id' and step_slug = 'last'),
  1,
  'the dependent loses one dependency'
);
select ok(pgflow_tests.message_exists('skip_flow', :msg_id::bigint, 'a'), 'the failed task message is archived');

-- TEST: the dependent runs without the skipped key
select pgflow_tests.start_and_complete_task(:'run_id', 'needed', 0, '"n"'::jsonb);
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'last')),
  '{"needed": "n"}'::jsonb,
  'the dependent starts with an input lacking the skipped step'
);

select * from finish();
rollback;

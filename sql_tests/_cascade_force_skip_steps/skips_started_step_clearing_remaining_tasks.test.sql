begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a started single step
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: a started step becomes skipped with remaining_tasks NULL
select pgflow._cascade_force_skip_steps(:'run_id', 'first', 'handler_failed');
select results_eq(
  format($$select status, remaining_tasks, skip_reason, started_at is not null
           from pgflow.step_states where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('skipped'::text, null::int, 'handler_failed'::text, true)$$,
  'the started step is skipped, remaining_tasks NULL, started_at kept'
);
select ok(
  pgflow_tests.message_exists('sequential', pgflow_tests.task_msg_id(:'run_id', 'first'), 'a'),
  'its message is archived'
);

select * from finish();
rollback;

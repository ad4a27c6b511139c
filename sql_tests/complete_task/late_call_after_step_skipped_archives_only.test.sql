begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root map of two tasks; task 0 started, then the step was skipped
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'items', 0) as msg_id \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
update pgflow.step_states
set status = 'skipped', skip_reason = 'handler_failed', skipped_at = now(), remaining_tasks = null
where run_id = :'run_id' and step_slug = 'items';

-- TEST: the late complete only archives the message
select results_eq(
  format($$select status, output from pgflow.complete_task(%L, 'items', 0, '"late"'::jsonb)$$, :'run_id'),
  $$values ('started'::text, null::jsonb)$$,
  'complete_task returns the task untouched (still started, no output)'
);
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('skipped'::text, null::int, null::jsonb)$$,
  'the skipped step is not modified'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'the run is not modified'
);
select ok(
  pgflow_tests.message_exists('root_map', :msg_id::bigint, 'a'),
  'the task message is archived'
);

select * from finish();
rollback;

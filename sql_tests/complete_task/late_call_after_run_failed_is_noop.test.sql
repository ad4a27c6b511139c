begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: two_roots with root_a started; the run has failed meanwhile (its message was not
-- archived, so we can see that complete_task does not archive it either)
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'root_a') as msg_id \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'root_a');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'run_id';
create temp table before_task as
  select * from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'root_a';

-- TEST: complete_task returns the task untouched
create temp table returned as
  select * from pgflow.complete_task(:'run_id', 'root_a', 0, '"late"'::jsonb);
select results_eq('select * from returned', 'select * from before_task',
  'the returned row is the task as it was');
select results_eq(
  format($$select * from pgflow.step_tasks where run_id = %L and step_slug = 'root_a'$$, :'run_id'),
  'select * from before_task',
  'the task row is not modified (still started, no output)'
);

-- TEST: step, run and queue are untouched
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states
           where run_id = %L and step_slug = 'root_a'$$, :'run_id'),
  $$values ('started'::text, 1, null::jsonb)$$,
  'the step state is not modified'
);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, 3)$$,
  'the run is not modified'
);
select ok(
  pgflow_tests.message_exists('two_roots', :msg_id::bigint, 'q'),
  'the message is not archived by a late complete on a failed run'
);

select * from finish();
rollback;

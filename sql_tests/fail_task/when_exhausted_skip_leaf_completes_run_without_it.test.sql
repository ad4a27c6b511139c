begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: two leaves: "kept" and "dropped" (when_exhausted skip)
select pgflow.create_flow('leaves', max_attempts => 1);
select pgflow.add_step('leaves', 'kept');
select pgflow.add_step('leaves', 'dropped', when_exhausted => 'skip');
select run_id from pgflow.start_flow('leaves', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'kept', 0, '"k"'::jsonb);

-- TEST: skipping the last step completes the run inside fail_task
select pgflow_tests.start_and_fail_task(:'run_id', 'dropped');
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"kept": "k"}'::jsonb)$$,
  'the run completes and its output omits the skipped leaf'
);
select is(pgflow_tests.queue_count('leaves'), 0::bigint, 'no message is left');

select * from finish();
rollback;

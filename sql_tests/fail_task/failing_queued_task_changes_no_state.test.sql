begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a queued task that was never started, 1 attempt
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow.fail_task(:'run_id', 'first', 0, 'not started');

-- TEST: only a started task can fail
select results_eq(
  format($$select status, attempts_count, error_message from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('queued'::text, 0, null::text)$$,
  'the queued task is unchanged'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  'started',
  'the step is not failed'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run is not failed');

select * from finish();
rollback;

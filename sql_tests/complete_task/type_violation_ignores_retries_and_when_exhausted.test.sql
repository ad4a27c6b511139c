begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer has retries left and when_exhausted skip; it feeds a map
select pgflow.create_flow('tv_retry', max_attempts => 5);
select pgflow.add_step('tv_retry', 'producer', when_exhausted => 'skip');
select pgflow.add_step('tv_retry', 'mapper', array['producer'], step_type => 'map');
select run_id from pgflow.start_flow('tv_retry', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '"oops"'::jsonb);

-- TEST: no retry, no skip: the run fails
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'producer'),
  'failed',
  'the task is failed, not requeued, despite attempts left'
);
select results_eq(
  format($$select status, skip_reason from pgflow.step_states
           where run_id = %L and step_slug = 'producer'$$, :'run_id'),
  $$values ('failed'::text, null::text)$$,
  'the step is failed, not skipped, despite when_exhausted skip'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'failed',
  'the run is failed'
);

select * from finish();
rollback;

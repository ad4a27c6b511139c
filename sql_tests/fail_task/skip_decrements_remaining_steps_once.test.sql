begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: root map of 2 (when_exhausted skip), both tasks started, plus root "other"
select pgflow.create_flow('skip_once', max_attempts => 1);
select pgflow.add_step('skip_once', 'items', step_type => 'map', when_exhausted => 'skip');
select pgflow.add_step('skip_once', 'other');
select run_id from pgflow.start_flow('skip_once', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('skip_once', 1, 10);

-- TEST: both tasks fail; the step is skipped once
select pgflow.fail_task(:'run_id', 'items', 0, 'first');
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'the first exhausted failure skips the step and decrements remaining_steps'
);
select pgflow.fail_task(:'run_id', 'items', 1, 'second');
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'a second failure in the skipped step does not decrement again'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run is not failed'
);

select * from finish();
rollback;

begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: max_attempts 0 (allowed at SQL level)
select pgflow.create_flow('no_retry', max_attempts => 0);
select pgflow.add_step('no_retry', 'work');
select run_id from pgflow.start_flow('no_retry', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'work');

-- TEST: no retry
select is((select status from pgflow.step_tasks where run_id = :'run_id'), 'failed',
  'with max_attempts 0 the first failure is final');
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');

select * from finish();
rollback;

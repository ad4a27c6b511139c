begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: flow allows 5 attempts, the step only 1; another step inherits 5
select pgflow.create_flow('override', max_attempts => 5);
select pgflow.add_step('override', 'strict', max_attempts => 1);
select pgflow.add_step('override', 'lenient');
select run_id from pgflow.start_flow('override', '{}'::jsonb) \gset
-- (lenient's status is taken from fail_task's returned row: strict's failure then fails the
-- run, which cancels lenient's queued retry)
select status as lenient_status from pgflow_tests.start_and_fail_task(:'run_id', 'lenient') \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'strict');

-- TEST: the step value wins, the flow value is inherited otherwise
select is(
  :'lenient_status'::text,
  'queued',
  'a step without max_attempts inherits the flow''s 5 and is retried'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'strict'),
  'failed',
  'a step with max_attempts 1 fails on its first failure'
);

select * from finish();
rollback;

begin;
select plan(1);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: 3 attempts; one failure is retried
select pgflow.create_flow('retrying', max_attempts => 3);
select pgflow.add_step('retrying', 'work');
select run_id from pgflow.start_flow('retrying', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'work');

-- TEST: a retry is not a state change of step or run
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:work:started'],
  'a retried failure broadcasts nothing'
);

select * from finish();
rollback;

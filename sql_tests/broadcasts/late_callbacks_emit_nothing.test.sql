begin;
select plan(1);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two roots started; root_a fails the run
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'root_b');
select pgflow_tests.start_and_fail_task(:'run_id', 'root_a');
create temp table before_events as select pgflow_tests.run_events(:'run_id') as events;

-- TEST: late complete and fail calls do not broadcast
select pgflow.complete_task(:'run_id', 'root_b', 0, '"late"'::jsonb);
select pgflow.fail_task(:'run_id', 'root_b', 0, 'late');
select is(
  pgflow_tests.run_events(:'run_id'),
  (select events from before_events),
  'late callbacks on a failed run emit no event'
);

select * from finish();
rollback;

begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a started task at attempt 1 (max_attempts 1: a failure would fail the run)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');

-- TEST: attempt 5 never happened: ignored (unknown_attempt); the run goes on
select results_eq(
  format($$select outcome, reason from pgflow.fail_tasks(array[%L]::uuid[], array['first'], array[0],
      array['boom'], array[5])$$, :'run_id'),
  $$values ('ignored'::text, 'unknown_attempt'::text)$$,
  'a report of an attempt the task never had is ignored'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run did not fail');

select * from finish();
rollback;

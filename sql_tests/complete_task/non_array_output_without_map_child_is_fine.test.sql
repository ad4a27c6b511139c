begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: first -> second (single) -> last; first returns a string
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"plain"'::jsonb);

-- TEST: no type check applies when no map depends on the step
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  'completed',
  'a single step with single dependents completes with a non-array output'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run continues');

select * from finish();
rollback;

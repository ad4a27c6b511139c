begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; producer skipped by hand
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.mark_step_skipped(:'run_id', 'producer', 'condition_unmet');
select pgflow._release_dependents(array[:'run_id']::uuid[], array['producer']);

-- TEST: the dependent map learns it has nothing to map
select results_eq(
  format($$select status, remaining_deps, initial_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('created'::text, 0, 0)$$,
  'the dependent map gets initial_tasks 0 and no pending parent'
);

-- TEST: the skipped step counts as finished; grandchildren are untouched
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 2, 'remaining_steps 3 -> 2');
select results_eq(
  format($$select remaining_deps, initial_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'reducer'$$, :'run_id'),
  $$values (1, 1)$$,
  'the reducer still waits for the mapper'
);

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: map_chain producer -> mapper (map) -> reducer, max_attempts 1: producer fails, the
-- run fails, mapper and reducer are cancelled
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'producer');

-- TEST: skipping producer: the dependent map gets no task (completes empty), reducer runs
select results_eq(
  format($$select status, changed from pgflow.skip_step(%L, 'producer', 'alice', null)$$, :'run_id'),
  $$values ('started'::text, true)$$,
  'the run is started again'
);
select results_eq(
  format($$select step_slug, status, initial_tasks from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('mapper'::text, 'completed'::text, 0), ('producer', 'skipped', 1), ('reducer', 'started', 1)$$,
  'mapper completes with no task (its parent skipped), reducer is started'
);
select pgflow_tests.start_and_complete_task(:'run_id', 'reducer', 0, '"r"'::jsonb);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0)$$,
  'the run completes'
);

select * from finish();
rollback;

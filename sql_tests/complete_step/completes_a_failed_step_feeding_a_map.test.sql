begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: map_chain producer -> mapper (map) -> reducer, max_attempts 1: producer fails, the
-- run fails, mapper and reducer are cancelled (mapper's task count never became known)
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'producer');

-- TEST: completing producer by hand with an array sizes the map and starts it
select results_eq(
  format($$select status, changed from pgflow.complete_step(%L, 'producer', '[1, 2, 3]'::jsonb, 'alice', null)$$, :'run_id'),
  $$values ('started'::text, true)$$,
  'the run is started again'
);
select results_eq(
  format($$select status, initial_tasks, remaining_deps from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('started'::text, 3, 0)$$,
  'mapper is started with 3 tasks (one per element of the hand-made array)'
);
select results_eq(
  $$select task_index, input from pgflow_tests.read_and_start('map_chain', 1, 10) order by task_index$$,
  $$values (0, '1'::jsonb), (1, '2'::jsonb), (2, '3'::jsonb)$$,
  'the map tasks get the elements of the hand-made output'
);
select pgflow.complete_task(:'run_id', 'mapper', i, to_jsonb(i), null) from generate_series(0, 2) as i;
select pgflow_tests.start_and_complete_task(:'run_id', 'reducer', 0, '"sum"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"reducer": "sum"}'::jsonb)$$,
  'the run completes'
);

select * from finish();
rollback;

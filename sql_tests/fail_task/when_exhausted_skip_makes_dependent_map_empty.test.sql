begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer (when_exhausted skip) -> mapper (map) -> reducer
select pgflow.create_flow('skip_to_map', max_attempts => 1);
select pgflow.add_step('skip_to_map', 'producer', when_exhausted => 'skip');
select pgflow.add_step('skip_to_map', 'mapper', array['producer'], step_type => 'map');
select pgflow.add_step('skip_to_map', 'reducer', array['mapper']);
select run_id from pgflow.start_flow('skip_to_map', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'producer');

-- TEST: the map whose parent was skipped completes with []
select results_eq(
  format($$select status, initial_tasks, output from pgflow.step_states
           where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('completed'::text, 0, '[]'::jsonb)$$,
  'the dependent map completes immediately with []'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'reducer'),
  'started',
  'the reducer is started in the same fail_task call'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps: 3 - skipped producer - completed mapper'
);

select * from finish();
rollback;

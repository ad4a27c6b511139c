begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> gate (if {"mapper": ["x"]}, else skip); producer
-- finished by hand with [], so mapper is ready with 0 tasks and gate waits for it
select pgflow.create_flow('empty_gate');
select pgflow.add_step('empty_gate', 'producer');
select pgflow.add_step('empty_gate', 'mapper', array['producer'], step_type => 'map');
select pgflow.add_step('empty_gate', 'gate', array['mapper'], required_input_pattern => '{"mapper": ["x"]}');
select run_id from pgflow.start_flow('empty_gate', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'producer', '[]');

-- TEST: the run may continue
select is(pgflow._cascade(:'run_id'), true, 'returns true: no condition failed the run');

-- TEST: the empty map completed, then the step it made ready had its condition evaluated
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('completed'::text, '[]'::jsonb)$$,
  'the empty map is completed with []'
);
select results_eq(
  format($$select status, skip_reason from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('skipped'::text, 'condition_unmet'::text)$$,
  'the step readied by the empty map is skipped by its condition'
);

-- TEST: both count as finished; completing the run is not _cascade's job
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 0)$$,
  'remaining_steps 0, the run is still started'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug <> 'producer'),
  0,
  'no task is created'
);

select * from finish();
rollback;

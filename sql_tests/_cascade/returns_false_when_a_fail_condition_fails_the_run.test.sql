begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> gate (if {"mapper": ["x"]}, else fail the run)
select pgflow.create_flow('empty_strict');
select pgflow.add_step('empty_strict', 'producer');
select pgflow.add_step('empty_strict', 'mapper', array['producer'], step_type => 'map');
select pgflow.add_step('empty_strict', 'gate', array['mapper'], required_input_pattern => '{"mapper": ["x"]}',
  when_unmet => 'fail');
select run_id from pgflow.start_flow('empty_strict', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'producer', '[]');

-- TEST: false, and the run is failed
select is(pgflow._cascade(:'run_id'), false, 'returns false when a fail-mode condition failed the run');
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, 1)$$,
  'the run is failed (remaining_steps not decremented for the failed step)'
);
select results_eq(
  format($$select step_slug, status, error_message from pgflow.step_states
           where run_id = %L and step_slug in ('mapper', 'gate') order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'failed'::text, 'Condition not met'::text), ('mapper', 'completed', null)$$,
  'the empty map completed first, then the gate failed with Condition not met'
);

select * from finish();
rollback;

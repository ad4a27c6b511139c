begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: root map -> single step, started over []
select pgflow.create_flow('map_then_single');
select pgflow.add_step('map_then_single', 'items', step_type => 'map');
select pgflow.add_step('map_then_single', 'summary', array['items']);
select run_id from pgflow.start_flow('map_then_single', '[]'::jsonb) \gset

-- TEST: the map completed, the single step is ready and started
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'items'),
  'completed',
  'the empty root map completes'
);
select results_eq(
  format($$select status, remaining_deps, remaining_tasks
           from pgflow.step_states where run_id = %L and step_slug = 'summary'$$, :'run_id'),
  $$values ('started'::text, 0, 1)$$,
  'the dependent single step is started in the same start_flow call'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps counts only the single step'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run is still running'
);

-- TEST: its handler input contains the empty map output
select is(
  (select input from pgflow_tests.read_and_start('map_then_single')),
  '{"items": []}'::jsonb,
  'the single step receives {"items": []}'
);

select * from finish();
rollback;

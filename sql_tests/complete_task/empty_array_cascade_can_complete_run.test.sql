begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: producer -> m1 (map) -> m2 (map); producer returns []
select pgflow.create_flow('tail_maps');
select pgflow.add_step('tail_maps', 'producer');
select pgflow.add_step('tail_maps', 'm1', array['producer'], step_type => 'map');
select pgflow.add_step('tail_maps', 'm2', array['m1'], step_type => 'map');
select run_id from pgflow.start_flow('tail_maps', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[]'::jsonb);

-- TEST: both maps complete and the run with them
select results_eq(
  format($$select step_slug, status, output from pgflow.step_states
           where run_id = %L and step_slug <> 'producer' order by step_slug$$, :'run_id'),
  $$values ('m1'::text, 'completed'::text, '[]'::jsonb), ('m2', 'completed', '[]'::jsonb)$$,
  'the chain of maps after [] completes with []'
);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"m2": []}'::jsonb)$$,
  'the run completes inside complete_task with output {"m2": []}'
);

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer (single) -> mapper (map); producer returns JSON null (not SQL NULL)
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, 'null'::jsonb);

-- TEST: JSON null is not an array either
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed',
  'a JSON null output feeding a map fails the run');
select results_eq(
  format($$select status, output, error_message from pgflow.step_tasks
           where run_id = %L and step_slug = 'producer'$$, :'run_id'),
  $$values ('failed'::text, 'null'::jsonb, '[TYPE_VIOLATION] Produced null instead of array'::text)$$,
  'the task stores the JSON null output and reports "null"'
);
select is(
  (select error_message from pgflow.step_states where run_id = :'run_id' and step_slug = 'producer'),
  '[TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced null',
  'the step error names the map and the dependency'
);

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer (two runs); items (root map) -> doubled (map)
select pgflow_tests.setup_flow('map_chain');
select run_id as r_array from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select run_id as r_object from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.create_flow('map_of_map');
select pgflow.add_step('map_of_map', 'items', step_type => 'map');
select pgflow.add_step('map_of_map', 'doubled', array['items'], step_type => 'map');
select run_id as r_map from pgflow.start_flow('map_of_map', '[1, 2, 3, 4]'::jsonb) \gset
select pgflow_tests.mark_step_completed(:'r_array', 'producer', '["a", "b", "c"]');
select pgflow_tests.mark_step_completed(:'r_object', 'producer', '{"a": 1}');
select pgflow_tests.mark_step_completed(:'r_map', 'items', '[2, 4, 6, 8]');
select pgflow._release_dependents(array[:'r_array', :'r_object', :'r_map']::uuid[], array['producer', 'producer', 'items']);

-- TEST: a single parent's array output gives its length
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'r_array' and step_slug = 'mapper'),
  3,
  'a 3-element array output gives the dependent map 3 tasks'
);

-- TEST: a non-array output leaves the count unknown
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'r_object' and step_slug = 'mapper'),
  null,
  'a non-array output leaves initial_tasks NULL'
);

-- TEST: a parent map gives its own task count
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'r_map' and step_slug = 'doubled'),
  4,
  'a dependent of a 4-task map gets 4 tasks'
);

-- TEST: a single dependent keeps its one task
select pgflow_tests.mark_step_completed(:'r_array', 'mapper', '[1, 2, 3]');
select pgflow._release_dependents(array[:'r_array']::uuid[], array['mapper']);
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'r_array' and step_slug = 'reducer'),
  1,
  'a single dependent of a map keeps initial_tasks 1'
);

select * from finish();
rollback;

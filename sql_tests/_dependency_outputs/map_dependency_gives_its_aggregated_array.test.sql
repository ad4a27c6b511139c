begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; mapper's tasks complete out of order
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[10, 20, 30]');
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 2, '"c"');
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 0, '"a"');
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 1, '"b"');

-- TEST: the map's stored output, in task_index order
select is(
  pgflow._dependency_outputs(:'run_id', 'map_chain', 'reducer'),
  '{"mapper": ["a", "b", "c"]}'::jsonb,
  'a map dependency contributes its array of task outputs in task_index order'
);

-- TEST: read from step_states.output, not recomputed from the tasks
update pgflow.step_states set output = '"stored"' where run_id = :'run_id' and step_slug = 'mapper';
select is(
  pgflow._dependency_outputs(:'run_id', 'map_chain', 'reducer'),
  '{"mapper": "stored"}'::jsonb,
  'the stored step output is what is returned'
);

select * from finish();
rollback;

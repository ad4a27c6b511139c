begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map leaf)
select pgflow.create_flow('map_leaf');
select pgflow.add_step('map_leaf', 'producer');
select pgflow.add_step('map_leaf', 'mapper', array['producer'], step_type => 'map');
select run_id from pgflow.start_flow('map_leaf', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[1, 2]'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 1, '"two"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 0, '"one"'::jsonb);

-- TEST: the map leaf contributes its stored, ordered array
select is(
  (select output from pgflow.runs where run_id = :'run_id'),
  '{"mapper": ["one", "two"]}'::jsonb,
  'the run output holds the aggregated map array ordered by task_index'
);

select * from finish();
rollback;

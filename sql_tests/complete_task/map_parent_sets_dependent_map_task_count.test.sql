begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: root map "first" -> dependent map "second"
select pgflow.create_flow('map_map');
select pgflow.add_step('map_map', 'first', step_type => 'map');
select pgflow.add_step('map_map', 'second', array['first'], step_type => 'map');
select run_id from pgflow.start_flow('map_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('map_map', 1, 10);
select pgflow.complete_task(:'run_id', 'first', 0, '"x"'::jsonb);
select pgflow.complete_task(:'run_id', 'first', 1, '"y"'::jsonb);
select pgflow.complete_task(:'run_id', 'first', 2, '"z"'::jsonb);

-- TEST: the child map gets the parent map's task count
select results_eq(
  format($$select status, initial_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('started'::text, 3)$$,
  'a map after a map gets initial_tasks = the parent''s task count'
);
select results_eq(
  $$select task_index, input from pgflow_tests.read_and_start('map_map', 1, 10) order by task_index$$,
  $$values (0, '"x"'::jsonb), (1, '"y"'), (2, '"z"')$$,
  'each child task receives the parent task output at the same index'
);

select * from finish();
rollback;

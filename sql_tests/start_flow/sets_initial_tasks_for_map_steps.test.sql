begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map over the input, a dependent map over it, and a single step after it
select pgflow.create_flow('maps');
select pgflow.add_step('maps', 'root_items', step_type => 'map');
select pgflow.add_step('maps', 'child_items', array['root_items'], step_type => 'map');
select pgflow.add_step('maps', 'summary', array['child_items']);
select run_id from pgflow.start_flow('maps', '[10, 20, 30]'::jsonb) \gset

-- TEST: a root map has one task per element of the input
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'root_items'),
  3,
  'initial_tasks of a root map is the length of the input array'
);

-- TEST: a dependent map does not know its task count yet
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'child_items'),
  null,
  'initial_tasks of a dependent map is NULL until its parent completes'
);

-- TEST: a single step has one task
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'summary'),
  1,
  'initial_tasks of a single step is 1'
);

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; producer returns []
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[]'::jsonb);

-- TEST: the dependent map completes at once with []
select results_eq(
  format($$select status, initial_tasks, remaining_tasks, output
           from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('completed'::text, 0, 0, '[]'::jsonb)$$,
  'the map over [] is completed with output [] inside complete_task'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'mapper'),
  0,
  'no map task is created'
);

-- TEST: the cascade continues to the reducer
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'reducer'),
  'started',
  'the reducer is started'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps counts only the reducer'
);

select * from finish();
rollback;

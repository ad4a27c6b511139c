begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[1, 2, 3, 4]'::jsonb);

-- TEST: the dependent map gets initial_tasks = length of the array
select results_eq(
  format($$select status, initial_tasks, remaining_tasks, remaining_deps
           from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('started'::text, 4, 4, 0)$$,
  'the map is started with initial_tasks = remaining_tasks = 4'
);
select results_eq(
  format($$select task_index from pgflow.step_tasks
           where run_id = %L and step_slug = 'mapper' order by task_index$$, :'run_id'),
  $$values (0), (1), (2), (3)$$,
  'one task per element'
);
select is(
  pgflow_tests.queue_count('map_chain'),
  4::bigint,
  'one message per map task (the producer''s message is archived)'
);

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with two started tasks; task 0 reported twice in one call
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 2);

-- TEST: the first item completes, the repeat is ignored
select results_eq(
  format($$select ord, outcome, reason from pgflow._complete_tasks(
      array[1, 2, 3], array[%1$L, %1$L, %1$L]::uuid[], array['items', 'items', 'items'], array[0, 0, 1],
      array['"first"', '"second"', '"other"']::jsonb[], null)$$, :'run_id'),
  $$values (1, 'completed'::text, null::text), (2, 'ignored', 'task_not_started'), (3, 'completed', null)$$,
  'a task named twice: completed once, then task_not_started'
);
select is(
  (select output from pgflow.step_tasks where run_id = :'run_id' and task_index = 0),
  '"first"'::jsonb,
  'the task keeps the first item''s output'
);

-- TEST: the step counted the task once
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '["first", "other"]'::jsonb)$$,
  'the step completed with two tasks counted, not three'
);

select * from finish();
rollback;

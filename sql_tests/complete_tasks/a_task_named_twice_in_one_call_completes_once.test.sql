begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with two started tasks; task 0 reported twice in one call
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 2);

-- TEST: the first report completes task 0, and with task 1 the step; the repeat is then
-- what a later complete_task call would be: ignored, the step no longer started
select results_eq(
  format($$select task_index, status, outcome, reason from pgflow.complete_tasks(
      array[%1$L, %1$L, %1$L]::uuid[], array['items', 'items', 'items'], array[0, 0, 1],
      array['"first"', '"second"', '"other"']::jsonb[])$$, :'run_id'),
  $$values (0, 'completed'::text, 'completed'::text, null::text), (0, 'completed', 'ignored', 'step_not_started'),
           (1, 'completed', 'completed', null)$$,
  'a task named twice: completed once, the repeat ignored'
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

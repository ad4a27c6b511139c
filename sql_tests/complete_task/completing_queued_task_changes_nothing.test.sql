begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with two queued tasks, none started
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset

-- TEST: completing a task that was never started changes nothing
select pgflow.complete_task(:'run_id', 'items', 0, '"too early"'::jsonb);
select results_eq(
  format($$select status, output, completed_at from pgflow.step_tasks
           where run_id = %L and task_index = 0$$, :'run_id'),
  $$values ('queued'::text, null::jsonb, null::timestamptz)$$,
  'the queued task stays queued without output'
);
select results_eq(
  format($$select status, remaining_tasks from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 2)$$,
  'remaining_tasks is not decremented'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'the run is not modified'
);

select * from finish();
rollback;

begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a root map of two started tasks, a 1 kB payload limit
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 10);
select set_config('pgflow.max_payload_bytes', '1kB', true);

-- TEST: task 0 completed by the first report; the second, oversized, changes nothing and
-- says so (not "refused": the task is no longer started)
select results_eq(
  format($$select task_index, status, outcome, reason from pgflow.complete_tasks(
      array[%1$L, %1$L]::uuid[], array['items', 'items'], array[0, 0],
      array['"ok"', to_jsonb(repeat('y', 5000))]::jsonb[], array[1, 1])$$, :'run'),
  $$values (0, 'completed'::text, 'completed'::text, null::text), (0, 'completed', 'ignored', 'task_not_started')$$,
  'the later report of a task completed in the same call is ignored'
);
select is((select output from pgflow.step_tasks where run_id = :'run' and task_index = 0), '"ok"'::jsonb,
  'the task keeps the first output');

select * from finish();
rollback;

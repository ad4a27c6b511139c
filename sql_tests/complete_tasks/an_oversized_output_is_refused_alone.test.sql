begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map of three started tasks, a 1 kB payload limit
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 10);
select set_config('pgflow.max_payload_bytes', '1kB', true);

-- TEST: the oversized output is refused for its own report, the others complete
select results_eq(
  format($$select task_index, status, outcome, reason, detail from pgflow.complete_tasks(
      array[%1$L, %1$L, %1$L]::uuid[], array['items', 'items', 'items'], array[0, 1, 2],
      array['1', to_jsonb(repeat('x', 2000)), '3']::jsonb[])$$, :'run'),
  format($$values (0, 'completed'::text, 'completed'::text, null::text, null::text),
                  (1, 'started', 'refused', 'payload_too_large',
                   'Output of task items[1] of run %s is 2012 bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)'),
                  (2, 'completed', 'completed', null, null)$$, :'run'),
  'one refusal, two completions'
);
select is((select output from pgflow.step_tasks where run_id = :'run' and task_index = 1), null,
  'nothing of the oversized output is stored');
select is((select remaining_tasks from pgflow.step_states where run_id = :'run'), 1,
  'the step waits for the refused task');

select * from finish();
rollback;

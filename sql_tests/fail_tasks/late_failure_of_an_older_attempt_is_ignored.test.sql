begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: max_attempts 2; a root map of two tasks. Task 0: claimed by A (attempt 1),
-- requeued, claimed by B (attempt 2). Task 1: claimed once (attempt 1).
select pgflow.create_flow('fenced_map', max_attempts => 2);
select pgflow.add_step('fenced_map', 'items', step_type => 'map');
select run_id from pgflow.start_flow('fenced_map', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
select pgflow_tests.requeue_and_reclaim(:'run_id', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 1);

-- TEST: in one call, A's late failure of task 0 is ignored, task 1's failure is retried
select results_eq(
  format($$select task_index, status, outcome, reason from pgflow.fail_tasks(array[%1$L, %1$L]::uuid[],
      array['items', 'items'], array[0, 1], array['late from A', 'boom'], array[1, 1])$$, :'run_id'),
  $$values (0, 'started'::text, 'ignored'::text, 'stale_attempt'::text), (1, 'queued', 'retried', null)$$,
  'one outcome per report'
);
select results_eq(
  format($$select task_index, attempts_count, error_message from pgflow.step_tasks
           where run_id = %L order by task_index$$, :'run_id'),
  $$values (0, 2, null::text), (1, 1, 'boom'::text)$$,
  'only the live report wrote anything'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run goes on');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root_map of three tasks, max_attempts 1 (set on the flow by setup_flow): task 0
-- and 1 started, task 2 queued; a second flow retries (max_attempts 3)
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run', 'items', 1);
select pgflow.create_flow('retrying', max_attempts => 3, base_delay => 1);
select pgflow.add_step('retrying', 'only');
select run_id as retry_run from pgflow.start_flow('retrying', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'retry_run', 'only');

-- TEST: a retry, an exhaustion, an unknown task and two reports made late by the
-- exhaustion (the run failed, which cancelled the queued task 2 and the started task 1),
-- in array order
select results_eq(
  format($$select run_id, task_index, status, outcome, reason from pgflow.fail_tasks(
      array[%1$L, %2$L, %2$L, %2$L, %2$L]::uuid[], array['only', 'items', 'items', 'items', 'items'],
      array[0, 0, 2, 7, 1], array['e1', 'e2', 'e3', 'e4', 'e5'])$$, :'retry_run', :'run'),
  format($$values (%1$L::uuid, 0, 'queued'::text, 'retried'::text, null::text),
                  (%2$L, 0, 'failed', 'failed', 'exhausted'),
                  (%2$L, 2, 'cancelled', 'ignored', 'run_failed'),
                  (%2$L, 7, null, 'ignored', 'unknown_task'),
                  (%2$L, 1, 'cancelled', 'ignored', 'run_failed')$$, :'retry_run', :'run'),
  'one row per report with its outcome, as fail_task called report by report (cancelled tasks of the failed run: ignored, run_failed)'
);
select is((select status from pgflow.runs where run_id = :'run'), 'failed', 'the exhausted task failed the run');
select is((select status from pgflow.runs where run_id = :'retry_run'), 'started', 'the retried run goes on');
select is(
  (select error_message from pgflow.step_tasks where run_id = :'retry_run'),
  'e1', 'the retried task keeps its error');

select * from finish();
rollback;

begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: a root map of three tasks: 0 and 1 started, 2 still queued; a second run failed
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run', 'items', 1);
select run_id as failed_run from pgflow.start_flow('root_map', '[1]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'failed_run', 'items', 0);
select pgflow_tests.task_msg_id(:'failed_run', 'items', 0) as failed_msg \gset
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'failed_run';

-- TEST: a task named twice completes once with its first output; a queued task, a failed
-- run and an unknown task change nothing, each with its reason
select results_eq(
  format($$select run_id, task_index, status, outcome, reason from pgflow.complete_tasks(
      array[%1$L, %1$L, %1$L, %2$L, %1$L]::uuid[], array['items', 'items', 'items', 'items', 'items'],
      array[0, 0, 2, 0, 9], array['"first"', '"second"', '"queued"', '"late"', '"nope"']::jsonb[])$$,
    :'run', :'failed_run'),
  format($$values (%1$L::uuid, 0, 'completed'::text, 'completed'::text, null::text),
                  (%1$L, 0, 'completed', 'ignored', 'task_not_started'),
                  (%1$L, 2, 'queued', 'ignored', 'task_not_started'),
                  (%2$L, 0, 'started', 'ignored', 'run_failed'),
                  (%1$L, 9, null, 'ignored', 'unknown_task')$$, :'run', :'failed_run'),
  'one row per report in array order, with its outcome and reason'
);
select is((select output from pgflow.step_tasks where run_id = :'run' and task_index = 0), '"first"'::jsonb,
  'a task named twice keeps its first output');
select is((select remaining_tasks from pgflow.step_states where run_id = :'run'), 2,
  'remaining_tasks drops once for it');
select is((select output from pgflow.step_tasks where run_id = :'run' and task_index = 2), null,
  'the queued task is untouched');
select ok(pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run', 'items', 2), 'q'),
  'the queued task keeps its message');
select is((select status from pgflow.step_tasks where run_id = :'failed_run'), 'started',
  'the failed run''s task is untouched');
select ok(pgflow_tests.message_exists('root_map', :failed_msg::bigint, 'q'),
  'the failed run''s message is not archived (as complete_task)');

-- TEST: a late report for a skipped step only archives its message
update pgflow.step_states
set status = 'skipped', skip_reason = 'handler_failed', skipped_at = now(), remaining_tasks = null
where run_id = :'run' and step_slug = 'items';
select is(
  (select status from pgflow.complete_tasks(array[:'run']::uuid[], array['items'], array[1], array['"x"']::jsonb[])),
  'started', 'the task of the skipped step is returned untouched');
select ok(pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run', 'items', 1), 'a'),
  'its message is archived');

select * from finish();
rollback;

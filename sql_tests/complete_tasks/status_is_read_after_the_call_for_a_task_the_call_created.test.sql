begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: sequential flow first -> second -> last; first's task started. One call reports
-- first[0] (completes it, so second starts and its task 0 is created, queued) and, after it,
-- second[0] (unknown when the call began). Realtime is off and the flow has no condition and
-- no map: both reports go to _complete_tasks together (one wave).
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');

-- TEST: status is the task's status after the call (as the comment of complete_tasks says
-- and as before #10): second[0] exists and is queued by then
select results_eq(
  format($$select step_slug, task_index, status, outcome, reason from pgflow.complete_tasks(
      array[%1$L, %1$L]::uuid[], array['first', 'second'], array[0, 0],
      array['"a"', '"b"']::jsonb[])$$, :'run_id'),
  $$values ('first'::text, 0, 'completed'::text, 'completed'::text, null::text),
           ('second', 0, 'queued', 'ignored', 'unknown_task')$$,
  'a task created by an earlier report of the call is returned with its status after the call'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'second' and task_index = 0),
  'queued',
  'second[0] is queued after the call'
);

select * from finish();
rollback;

begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP:
--   run "stopped" (root_map of 3): task 0 completed, 1 started, 2 queued, then cancel_run
--   run "broken" (two_roots, 1 attempt): root_a fails (the run fails), root_b queued -> cancelled
--   run "busy" (two_roots): root_a started, root_b completed by hand (complete_step), run started
--   run "live" (root_map of 1): task 0 started
select pgflow_tests.setup_flow('root_map');
select pgflow_tests.setup_flow('two_roots');
select run_id as stopped from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'stopped', 'items', 0);
select count(*) from pgflow_tests.start_task(:'stopped', 'items', 1);
select count(*) from pgflow.cancel_run(:'stopped', 'alice', null);
select run_id as broken from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_fail_task(:'broken', 'root_a');
select run_id as busy from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'busy', 'root_a');
select count(*) from pgflow_tests.start_task(:'busy', 'root_b');
select count(*) from pgflow.complete_step(:'busy', 'root_b', '"by hand"'::jsonb, 'ops', null);
select run_id as live from pgflow.start_flow('root_map', '[1]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'live', 'items', 0);

create temp table before as
  select (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t) as tasks,
         (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r) as runs,
         (select count(*) from pgflow.run_events) as events;

-- TEST: the setup: which tasks are cancelled
select results_eq(
  format($$select run_id, step_slug, task_index from pgflow.step_tasks where status = 'cancelled' order by 1, 2, 3$$),
  format($$select * from (values (%L::uuid, 'items'::text, 1), (%1$L, 'items', 2), (%2$L, 'root_b', 0), (%3$L, 'root_b', 0)) as v
           order by 1, 2, 3$$, :'stopped', :'broken', :'busy'),
  'cancelled: tasks 1 and 2 of stopped, root_b of broken, root_b of busy'
);

-- TEST: of the tasks named, only the cancelled ones, each with its run's status
select results_eq(
  format($$select * from pgflow.cancelled_tasks(
      array[%1$L, %1$L, %1$L, %1$L, %2$L, %2$L, %3$L, %3$L, %4$L, '00000000-0000-0000-0000-00000000abcd']::uuid[],
      array['items', 'items', 'items', 'items', 'root_a', 'root_b', 'root_a', 'root_b', 'items', 'items'],
      array[0, 1, 2, 9, 0, 0, 0, 0, 0, 0])
    order by run_status, step_slug, task_index$$, :'stopped', :'broken', :'busy', :'live'),
  format($$values (%1$L::uuid, 'items'::text, 1, 'cancelled'::text), (%1$L, 'items', 2, 'cancelled'),
                  (%2$L, 'root_b', 0, 'failed'), (%3$L, 'root_b', 0, 'started')$$, :'stopped', :'broken', :'busy'),
  'cancelled tasks listed with run status cancelled, failed or started; completed, failed, started and unknown tasks left out'
);

-- TEST: nothing named, nothing returned; arrays of different lengths pair up as unnest does
select is((select count(*) from pgflow.cancelled_tasks('{}', '{}', '{}')), 0::bigint, 'empty arrays return nothing');
select results_eq(
  format($$select step_slug, task_index from pgflow.cancelled_tasks(array[%1$L, %1$L]::uuid[], array['items'], array[1, 2])$$,
         :'stopped'),
  $$values ('items'::text, 1)$$,
  'an element missing from one array (NULL) leaves that task out'
);

-- TEST: the calls read only
select results_eq(
  $$select (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
           (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
           (select count(*) from pgflow.run_events)$$,
  $$select tasks, runs, events from before$$,
  'tasks, runs and events are unchanged'
);

select * from finish();
rollback;

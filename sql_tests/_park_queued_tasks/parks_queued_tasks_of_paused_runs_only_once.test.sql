begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: two runs of root_map over three items, task 0 of each started; run "held" is
-- marked paused directly (pause_run would park its tasks itself), run "busy" stays started
select pgflow_tests.setup_flow('root_map');
select run_id as held from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select run_id as busy from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'held', 'items', 0);
select count(*) from pgflow_tests.start_task(:'busy', 'items', 0);
update pgflow.runs set status = 'paused', paused_at = now() where run_id = :'held';
create temp table tasks_before as
  select run_id, step_slug, task_index, status, message_id from pgflow.step_tasks;

-- TEST: only the queued tasks of the paused run lose their messages, to the archive
select pgflow._park_queued_tasks(array[:'held', :'busy']::uuid[]);
select results_eq(
  $$select t.run_id, t.task_index,
           pgflow_tests.message_exists('root_map', t.message_id), pgflow_tests.message_exists('root_map', t.message_id, 'a')
    from pgflow.step_tasks as t order by t.run_id, t.task_index$$,
  format($$select * from (values
      (%1$L::uuid, 0, true, false), (%1$L, 1, false, true), (%1$L, 2, false, true),
      (%2$L::uuid, 0, true, false), (%2$L, 1, true, false), (%2$L, 2, true, false)) as v
    order by 1, 2$$, :'held', :'busy'),
  'held: queued tasks 1 and 2 archived, started task 0 kept; busy (started run): all kept'
);
select results_eq(
  $$select run_id, step_slug, task_index, status, message_id from pgflow.step_tasks order by 1, 2, 3$$,
  $$select * from tasks_before order by 1, 2, 3$$,
  'every task keeps its status and message_id'
);
select is(pgflow_tests.queue_count('root_map', 'a'), 2::bigint, 'two messages are archived');

-- TEST: a second call archives nothing more; NULL and empty arrays do nothing
select pgflow._park_queued_tasks(array[:'held', :'busy']::uuid[]);
select pgflow._park_queued_tasks(null);
select pgflow._park_queued_tasks('{}');
select results_eq(
  $$select pgflow_tests.queue_count('root_map'), pgflow_tests.queue_count('root_map', 'a')$$,
  $$values (4::bigint, 2::bigint)$$,
  'still four messages in the queue and two in the archive'
);
select results_eq(
  $$select run_id, step_slug, task_index, status, message_id from pgflow.step_tasks order by 1, 2, 3$$,
  $$select * from tasks_before order by 1, 2, 3$$,
  'and the tasks are unchanged'
);

-- TEST: the function writes no event
select is(
  (select count(*) from pgflow.run_events where event not in ('run:started', 'step:started', 'run:paused')),
  0::bigint, 'no event other than the setup''s');

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: root_map of three items: task 0 completed, tasks 1 and 2 started, by one worker
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'root_map', 'x');
select count(*) from pgflow.read_and_start_tasks('root_map', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select count(*) from pgflow.complete_task(:'run', 'items', 0, '"done"'::jsonb, 1);

-- TEST: before cancel_run, none of the tasks the worker holds is cancelled
select is(
  (select count(*) from pgflow.cancelled_tasks(array[:'run', :'run', :'run']::uuid[],
                                               array['items', 'items', 'items'], array[0, 1, 2])),
  0::bigint, 'nothing is cancelled while the run is started');

-- TEST: after cancel_run, the worker's heartbeat check lists the two started tasks
select count(*) from pgflow.cancel_run(:'run', 'alice', null);
select results_eq(
  format($$select * from pgflow.cancelled_tasks(array[%1$L, %1$L, %1$L]::uuid[],
                                                array['items', 'items', 'items'], array[0, 1, 2])
           order by task_index$$, :'run'),
  format($$values (%1$L::uuid, 'items'::text, 1, 'cancelled'::text), (%1$L, 'items', 2, 'cancelled')$$, :'run'),
  'cancelled_tasks lists tasks 1 and 2 with run status cancelled (the completed task 0 is not)'
);
select is(
  (select array_agg(task_index order by task_index) from pgflow.step_tasks where run_id = :'run' and status = 'cancelled'),
  array[1, 2], 'exactly those tasks are cancelled');

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: root_map over three items (max_attempts 1), worker 1111... registered
select pgflow_tests.setup_flow('root_map');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'root_map', 'x');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) as before, max(id) as last_id from pgflow.run_events \gset

-- TEST: claiming the three tasks writes no event
select is((select count(*)::int from pgflow.read_and_start_tasks('root_map', '11111111-1111-1111-1111-111111111111', 10, 30, null)),
  3, 'precondition: three tasks claimed');
select is((select count(*) from pgflow.run_events), :before::bigint, 'a claim writes nothing');

-- TEST: completing them writes no task event (only the step's and the run's completion)
select count(*) from pgflow.complete_task(:'run', 'items', 0, '"a"'::jsonb, 1);
select count(*) from pgflow.complete_tasks(array[:'run', :'run']::uuid[], array['items', 'items'], array[1, 2],
                                           array['"b"', '"c"']::jsonb[], array[1, 1]);
select results_eq(
  format($$select step_slug, task_index, event from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run', :last_id),
  $$values ('items'::text, null::int, 'step:completed'::text), (null, null, 'run:completed')$$,
  'step:completed and run:completed only, no task:* row'
);

select * from finish();
rollback;

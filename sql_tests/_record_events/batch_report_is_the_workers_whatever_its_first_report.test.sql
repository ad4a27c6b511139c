begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a two-root flow (max_attempts 1); run "run" has both tasks claimed by worker
-- 1111...; run "idle" has tasks nobody claimed
select pgflow.create_flow('two', max_attempts => 1);
select pgflow.add_step('two', 'a');
select pgflow.add_step('two', 'b');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'two', 'x');
select run_id as idle from pgflow.start_flow('two', '{}'::jsonb) \gset
select run_id as run from pgflow.start_flow('two', '{}'::jsonb) \gset
select run_id as run2 from pgflow.start_flow('two', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'a');
select count(*) from pgflow_tests.start_task(:'run', 'b');
select count(*) from pgflow_tests.start_task(:'run2', 'a');

-- TEST: a batch of completions whose first report is ignored (a task nobody claimed):
-- the run completed by the others is still the worker's
select count(*) from pgflow.complete_tasks(array[:'idle', :'run', :'run']::uuid[], array['a', 'a', 'b'],
                                           array[0, 0, 0], array['1', '2', '3']::jsonb[]);
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where run_id = %L and event like '%%:completed' order by id$$, :'run'),
  $$values ('a'::text, 'step:completed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text),
           ('b', 'step:completed', 'worker:11111111-1111-1111-1111-111111111111'),
           (null, 'run:completed', 'worker:11111111-1111-1111-1111-111111111111')$$,
  'complete_tasks: steps and run completed by worker:1111..., not system'
);

-- TEST: the same for a batch of failures
select count(*) from pgflow.fail_tasks(array[:'idle', :'run2']::uuid[], array['b', 'a'], array[0, 0],
                                       array['late', 'boom']);
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events
           where run_id = %L and event in ('task:failed', 'step:failed', 'run:failed') order by id$$, :'run2'),
  $$values ('a'::text, 'task:failed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text),
           ('a', 'step:failed', 'worker:11111111-1111-1111-1111-111111111111'),
           (null, 'run:failed', 'worker:11111111-1111-1111-1111-111111111111')$$,
  'fail_tasks: task, step and run failed by worker:1111..., not system'
);
select is(coalesce(current_setting('pgflow.actor', true), ''), '', 'pgflow.actor is unset after the reports');

select * from finish();
rollback;

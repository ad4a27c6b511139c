begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last; first started by the worker, then the run is paused
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'sequential', 'x');
select count(*) from pgflow.read_and_start_tasks('sequential', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select count(*) from pgflow.pause_run(:'run', 'alice', null);
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: the started task's report is recorded
select results_eq(
  format($$select status, output, completed_at = now() from pgflow.complete_task(%L, 'first', 0, '{"x": 1}'::jsonb, 1)$$, :'run'),
  $$values ('completed'::text, '{"x": 1}'::jsonb, true)$$,
  'complete_task of the started task completes it with its output'
);
select results_eq(
  format($$select status, output, remaining_tasks from pgflow.step_states where run_id = %L and step_slug = 'first'$$, :'run'),
  $$values ('completed'::text, '{"x": 1}'::jsonb, 0)$$,
  'the step completes with the output'
);

-- TEST: the dependent step is ready but not started while the run is paused
select results_eq(
  format($$select status, remaining_deps, started_at from pgflow.step_states where run_id = %L and step_slug = 'second'$$, :'run'),
  $$values ('created'::text, 0, null::timestamptz)$$,
  'second has no pending dependency but stays created'
);
select is(
  (select count(*) from pgflow.step_tasks where run_id = :'run' and step_slug = 'second'),
  0::bigint, 'second has no task');
select is(pgflow_tests.queue_count('sequential'), 0::bigint, 'no message is in the queue');
select results_eq(
  format($$select status, remaining_steps, paused_at is not null from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('paused'::text, 2, true)$$,
  'the run stays paused with two steps left'
);

-- TEST: the events: step:completed by the worker, no step:started
select results_eq(
  format($$select event, step_slug, actor from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run', :last_event),
  $$values ('step:completed'::text, 'first'::text, 'worker:11111111-1111-1111-1111-111111111111'::text)$$,
  'only step:completed of first, by the worker'
);

select * from finish();
rollback;

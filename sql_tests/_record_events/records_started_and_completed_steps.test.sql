begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow (first -> second -> last), worker 1111... registered
select pgflow_tests.setup_flow('sequential');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'sequential', 'x');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: start_flow inserts the root step started (step:started by app) and the others
-- created (no event)
select results_eq(
  format($$select step_slug, event, actor, reason, details, task_index from pgflow.run_events
           where run_id = %L and step_slug is not null order by id$$, :'run'),
  $$values ('first'::text, 'step:started'::text, 'app'::text, null::text, null::jsonb, null::int)$$,
  'one step event: first started (by app); second and last created write nothing'
);

-- TEST: the worker's completion of first: step:completed of first, step:started of second,
-- both by the worker
select attempts_count as attempt
from pgflow.read_and_start_tasks('sequential', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select count(*) from pgflow.complete_task(:'run', 'first', 0, '{"ok": true}'::jsonb, :attempt);
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events
           where run_id = %L and step_slug is not null order by id$$, :'run'),
  $$values ('first'::text, 'step:started'::text, 'app'::text, null::jsonb),
           ('first', 'step:completed', 'worker:11111111-1111-1111-1111-111111111111', null),
           ('second', 'step:started', 'worker:11111111-1111-1111-1111-111111111111', null)$$,
  'first completed, second started, by worker:1111...'
);

-- TEST: the claim of second's task writes no step event (the step is already started)
select count(*) as before from pgflow.run_events \gset
select count(*) from pgflow.read_and_start_tasks('sequential', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select is((select count(*) from pgflow.run_events), :before::bigint, 'a claim writes nothing');

select * from finish();
rollback;

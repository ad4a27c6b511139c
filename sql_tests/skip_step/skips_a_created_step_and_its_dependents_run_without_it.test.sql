begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: diamond root -> left, right -> last, a started run: root started, the others created
select pgflow_tests.setup_flow('diamond');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'diamond', 'x');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset
select max(id) as last_event from pgflow.run_events \gset

-- TEST: skip_step skips the created step "left"
select results_eq(
  format($$select * from pgflow.skip_step(%L, 'left', 'alice', 'not needed')$$, :'run_id'),
  format($$values (%L::uuid, 'started'::text, true, null::text)$$, :'run_id'),
  'skip_step returns the run, started, changed, no detail'
);
select results_eq(
  format($$select status, skip_reason, skipped_at is not null, remaining_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'left'$$, :'run_id'),
  $$values ('skipped'::text, 'skipped_by_operator'::text, true, null::int)$$,
  'left is skipped with skip_reason skipped_by_operator'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'left'),
  0,
  'left never gets a task'
);

-- TEST: the bookkeeping: one step fewer to go, last waits for one parent fewer
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 3, 'remaining_steps drops from 4 to 3');
select results_eq(
  format($$select step_slug, status, remaining_deps from pgflow.step_states
           where run_id = %L and step_slug in ('right', 'last') order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'created'::text, 1), ('right', 'created', 1)$$,
  'last waits only for right now; right still waits for root'
);

-- TEST: run_events: step:skipped with the actor, reason and skip_reason
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.run_events
           where run_id = %L and id > %s order by id$$, :'run_id', :'last_event'),
  $$values ('left'::text, 'step:skipped'::text, 'alice'::text, 'not needed'::text, '{"skip_reason": "skipped_by_operator"}'::jsonb)$$,
  'one event: step:skipped by alice with the reason and skip_reason'
);

-- TEST: the run goes on: root, right, then last with right's output only
select count(*) from pgflow.read_and_start_tasks('diamond', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.complete_task(:'run_id', 'root', 0, '"r"'::jsonb, 1);
select results_eq(
  $$select step_slug, input from pgflow.read_and_start_tasks('diamond', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('right'::text, '{"root": "r"}'::jsonb)$$,
  'after root only right is started (left stays skipped)'
);
select pgflow.complete_task(:'run_id', 'right', 0, '"R"'::jsonb, 1);
select results_eq(
  $$select step_slug, input from pgflow.read_and_start_tasks('diamond', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('last'::text, '{"right": "R"}'::jsonb)$$,
  'last runs without left''s output (no left key)'
);
select pgflow.complete_task(:'run_id', 'last', 0, '"L"'::jsonb, 1);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"last": "L"}'::jsonb)$$,
  'the run completes'
);

-- TEST: a skipped step whose dependent has no other pending parent releases it at once
select pgflow_tests.setup_flow('sequential');
select run_id as seq from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select * from pgflow.skip_step(:'seq', 'second', 'alice', null);
select results_eq(
  format($$select step_slug, status, remaining_deps from pgflow.step_states where run_id = %L order by step_slug$$, :'seq'),
  $$values ('first'::text, 'started'::text, 0), ('last', 'started', 0), ('second', 'skipped', 1)$$,
  'skipping second starts last at once (first still running); second''s own dependency count is left as it was'
);
select pgflow_tests.start_and_complete_task(:'seq', 'first');
select pgflow_tests.start_and_complete_task(:'seq', 'last', 0, '"end"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'seq'),
  $$values ('completed'::text, 0, '{"last": "end"}'::jsonb)$$,
  'that run completes too'
);

-- TEST: a skipped leaf: the run completes when the other steps are done, without its output
select run_id as seq2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select * from pgflow.skip_step(:'seq2', 'last', 'alice', null);
select pgflow_tests.start_and_complete_task(:'seq2', 'first');
select pgflow_tests.start_and_complete_task(:'seq2', 'second');
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'seq2'),
  $$values ('completed'::text, 0, null::jsonb)$$,
  'with its only leaf skipped the run completes with output NULL'
);

select * from finish();
rollback;

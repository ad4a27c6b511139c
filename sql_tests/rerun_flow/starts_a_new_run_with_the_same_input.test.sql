begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: a completed run of the sequential flow with an input
select pgflow_tests.setup_flow('sequential');
select run_id as old_run from pgflow.start_flow('sequential', '{"order": 42, "items": [1, 2]}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'old_run', 'first');
select pgflow_tests.start_and_complete_task(:'old_run', 'second');
select pgflow_tests.start_and_complete_task(:'old_run', 'last', 0, '"done"'::jsonb);
create temp table snapshot as
select (select to_jsonb(r) from pgflow.runs as r where r.run_id = :'old_run') as run,
       (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s where s.run_id = :'old_run') as steps,
       (select jsonb_agg(to_jsonb(t) order by t.step_slug) from pgflow.step_tasks as t where t.run_id = :'old_run') as tasks,
       (select max(id) from pgflow.run_events) as last_event;

-- TEST: rerun_flow returns the new run
create temp table result as select * from pgflow.rerun_flow(:'old_run', 'alice', 'data was fixed');
select results_eq(
  $$select run_id is not null, run_id <> (select (run ->> 'run_id')::uuid from snapshot), status, changed, detail from result$$,
  $$values (true, true, 'started'::text, true, null::text)$$,
  'one row: a new run id, started, changed, no detail'
);
select run_id as new_run from result \gset

-- TEST: the new run: same flow, same input, rerun_of the old run, started like start_flow
select results_eq(
  format($$select flow_slug, input, rerun_of, status, remaining_steps from pgflow.runs where run_id = %L$$, :'new_run'),
  format($$values ('sequential'::text, '{"order": 42, "items": [1, 2]}'::jsonb, %L::uuid, 'started'::text, 3)$$, :'old_run'),
  'the new run has the same flow and input, rerun_of = the old run, remaining_steps 3'
);
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'new_run'),
  $$values ('first'::text, 'started'::text), ('last', 'created'), ('second', 'created')$$,
  'its steps are new: first started, the others created'
);
select results_eq(
  $$select s.run_id, s.step_slug, s.flow_input from pgflow_tests.read_and_start('sequential') as s$$,
  format($$values (%L::uuid, 'first'::text, '{"order": 42, "items": [1, 2]}'::jsonb)$$, :'new_run'),
  'the new first task is queued and gets the same flow input'
);

-- TEST: the old run is untouched
select is((select to_jsonb(r) from pgflow.runs as r where r.run_id = :'old_run'), (select run from snapshot),
  'the old run row is unchanged (rerun_of of the old run not set either)');
select is(
  (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s where s.run_id = :'old_run'),
  (select steps from snapshot), 'the old run''s step states are unchanged');
select is(
  (select jsonb_agg(to_jsonb(t) order by t.step_slug) from pgflow.step_tasks as t where t.run_id = :'old_run'),
  (select tasks from snapshot), 'the old run''s tasks are unchanged');

-- TEST: run:rerun on the old run, with the new run id, actor and reason
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'old_run', (select last_event from snapshot)),
  format($$values ('run:rerun'::text, 'alice'::text, 'data was fixed'::text, jsonb_build_object('new_run_id', %L::uuid))$$, :'new_run'),
  'the old run gets one event: run:rerun with details.new_run_id'
);

-- TEST: run:started on the new run, with the actor and reason
select results_eq(
  format($$select event, actor, reason from pgflow.run_events where run_id = %L and step_slug is null order by id$$, :'new_run'),
  $$values ('run:started'::text, 'alice'::text, 'data was fixed'::text)$$,
  'the new run''s run:started names the actor and the reason'
);
select is(
  (select details from pgflow.run_events where run_id = :'new_run' and event = 'run:started'),
  jsonb_build_object('rerun_of', :'old_run'::uuid),
  'run:started of the new run carries details.rerun_of (as _record_run_events promises for a rerun)'
);

-- TEST: the actor is not left set after the call
select is(coalesce(current_setting('pgflow.actor', true), ''), '', 'pgflow.actor is unset again after the call');

select * from finish();
rollback;

begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: diamond root -> left, right -> last; a started run
select pgflow_tests.setup_flow('diamond');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset
create temp table snapshot as
select (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s) as steps,
       (select count(*) from pgflow.run_events) as events;

-- TEST: expected_status mismatch: nothing done
select results_eq(
  format($$select * from pgflow.skip_step(%L, 'left', 'alice', 'r', 'failed')$$, :'run_id'),
  format($$values (%L::uuid, 'started'::text, false, 'run is started, not failed: nothing done'::text)$$, :'run_id'),
  'expected failed, run started: changed false and why'
);
select is((select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s), (select steps from snapshot),
  'the step states are unchanged');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');

-- TEST: a paused run (root claimed before the pause, completed during it): the created step
-- is skipped, the run stays paused, nothing starts
select count(*) from pgflow_tests.start_task(:'run_id', 'root');
select * from pgflow.pause_run(:'run_id', 'alice', null);
select pgflow.complete_task(:'run_id', 'root', 0, '"r"'::jsonb);
select results_eq(
  format($$select * from pgflow.skip_step(%L, 'left', 'alice', 'r', 'paused')$$, :'run_id'),
  format($$values (%L::uuid, 'paused'::text, true, null::text)$$, :'run_id'),
  'skip_step on a paused run (expected paused): changed, the run stays paused'
);
select results_eq(
  format($$select step_slug, status, remaining_deps from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'created'::text, 1), ('left', 'skipped', 0), ('right', 'created', 0), ('root', 'completed', 0)$$,
  'left skipped, last released by it; right ready but not started while paused'
);
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 2, 'remaining_steps 2 (right, last)');

-- TEST: after resume the run goes on and completes
select * from pgflow.resume_run(:'run_id', 'alice', null);
select pgflow_tests.start_and_complete_task(:'run_id', 'right', 0, '"R"'::jsonb);
select results_eq(
  $$select step_slug, input from pgflow_tests.read_and_start('diamond')$$,
  $$values ('last'::text, '{"right": "R"}'::jsonb)$$,
  'last runs with right''s output only'
);
select pgflow.complete_task(:'run_id', 'last', 0, '"L"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"last": "L"}'::jsonb)$$,
  'the run completes'
);

select * from finish();
rollback;

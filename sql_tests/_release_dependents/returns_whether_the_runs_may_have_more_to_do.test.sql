begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: a 3-step chain, a one-step flow and a flow with a wait step
select pgflow_tests.setup_flow('sequential');
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select pgflow.create_flow('waits');
select pgflow.add_step('waits', 'work');
select pgflow.add_step('waits', 'gate');
select pgflow.add_wait('waits', 'gate', 'go');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('waits', '{}'::jsonb) \gset

-- TEST: a step with a dependent in a run still going: true, the dependent released
select pgflow_tests.mark_step_completed(:'r1', 'first', '1');
select is(pgflow._release_dependents(array[:'r1']::uuid[], array['first']), true,
  'true: a dependent was released');
select is((select remaining_deps from pgflow.step_states where run_id = :'r1' and step_slug = 'second'), 0,
  'the dependent has no pending parent');

-- TEST: a run's last step, complete_runs true: the run completes, nothing more to do
select pgflow_tests.mark_step_completed(:'r2', 'only', '2');
select is(pgflow._release_dependents(array[:'r2']::uuid[], array['only'], complete_runs => true), false,
  'false: the run completed');
select is((select status from pgflow.runs where run_id = :'r2'), 'completed', 'the run is completed');

-- TEST: a run's last step, complete_runs false (the default): the run is only counted off
select run_id as r4 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.mark_step_completed(:'r4', 'only', '4');
select is(pgflow._release_dependents(array[:'r4']::uuid[], array['only']), false,
  'false: nothing depends on the step');
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'r4'),
  $$values ('started'::text, 0)$$,
  'the run has no step left and is still started (its caller completes it)'
);

-- TEST: a leaf of a flow with a wait step, the run still going: true (a wait may end)
select pgflow_tests.mark_step_completed(:'r3', 'work', '3');
select is(pgflow._release_dependents(array[:'r3']::uuid[], array['work']), true,
  'true: the flow has wait steps');

-- TEST: empty arrays
select is(pgflow._release_dependents('{}'::uuid[], '{}'::text[]), false, 'false for no step');

select * from finish();
rollback;

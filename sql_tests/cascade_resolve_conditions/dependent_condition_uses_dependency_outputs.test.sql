begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: check -> act (requires {"check": {"ok": true}})
select pgflow.create_flow('dep_cond');
select pgflow.add_step('dep_cond', 'check');
select pgflow.add_step('dep_cond', 'act', array['check'],
  required_input_pattern => '{"check": {"ok": true}}');
select run_id as run_yes from pgflow.start_flow('dep_cond', '{"ok": false}'::jsonb) \gset
select run_id as run_no from pgflow.start_flow('dep_cond', '{"ok": true}'::jsonb) \gset

-- TEST: the condition is not evaluated while the dependency is pending
select is(
  (select status from pgflow.step_states where run_id = :'run_yes' and step_slug = 'act'),
  'created',
  'a dependent step with a condition waits while its dependency runs'
);

-- TEST: evaluated against {dep_slug: dep_output}, not the run input
select pgflow_tests.start_and_complete_task(:'run_yes', 'check', 0, '{"ok": true}'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_no', 'check', 0, '{"ok": false}'::jsonb);
select is(
  (select status from pgflow.step_states where run_id = :'run_yes' and step_slug = 'act'),
  'started',
  'the dependency output matches the pattern -> started (the run input would not have)'
);
select results_eq(
  format($$select status, skip_reason from pgflow.step_states
           where run_id = %L and step_slug = 'act'$$, :'run_no'),
  $$values ('skipped'::text, 'condition_unmet'::text)$$,
  'the dependency output does not match -> skipped (the run input would have)'
);

-- TEST: the run whose last step was skipped completes without it
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_no'),
  $$values ('completed'::text, null::jsonb)$$,
  'the run completes; the skipped leaf is omitted and no completed leaf remains (NULL output)'
);

select * from finish();
rollback;

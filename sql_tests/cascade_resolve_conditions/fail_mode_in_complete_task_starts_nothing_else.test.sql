begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: check -> gate (requires {"check": {"ok": true}}, fail mode) and check -> sibling
select pgflow.create_flow('stop_all');
select pgflow.add_step('stop_all', 'check');
select pgflow.add_step('stop_all', 'gate', array['check'],
  required_input_pattern => '{"check": {"ok": true}}', when_unmet => 'fail');
select pgflow.add_step('stop_all', 'sibling', array['check']);
select run_id from pgflow.start_flow('stop_all', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'check', 0, '{"ok": false}'::jsonb);

-- TEST: the completion itself is kept, the run fails, the sibling is never started
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'check'),
  'completed',
  'the completed step stays completed'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed by the condition');
select results_eq(
  format($$select status, remaining_deps, started_at is null, cancelled_at is not distinct from now()
           from pgflow.step_states where run_id = %L and step_slug = 'sibling'$$, :'run_id'),
  $$values ('cancelled'::text, 0, true, true)$$,
  'the ready sibling is never started: the run failure cancels it (cancelled_at now)'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug <> 'check'),
  0,
  'no task is created after the run failed'
);

select * from finish();
rollback;

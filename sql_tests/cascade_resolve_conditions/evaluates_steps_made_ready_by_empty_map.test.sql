begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: items (root map) -> gated (single, requires {"items": [1]}); started over [].
-- gated only becomes ready when the empty map completes in the taskless cascade.
-- (pgflow-py behaviour: conditions and the taskless cascade alternate until nothing
-- changes; upstream evaluates conditions once, before the taskless cascade.)
select pgflow.create_flow('late_ready');
select pgflow.add_step('late_ready', 'items', step_type => 'map');
select pgflow.add_step('late_ready', 'gated', array['items'], required_input_pattern => '{"items": [1]}');
select run_id from pgflow.start_flow('late_ready', '[]'::jsonb) \gset

-- TEST: its condition ({"items": []} does not contain {"items": [1]}) is still evaluated
select results_eq(
  format($$select status, skip_reason from pgflow.step_states
           where run_id = %L and step_slug = 'gated'$$, :'run_id'),
  $$values ('skipped'::text, 'condition_unmet'::text)$$,
  'a step made ready by an empty map completing is skipped when its condition is unmet'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id'),
  0,
  'no task is queued for it'
);

select * from finish();
rollback;

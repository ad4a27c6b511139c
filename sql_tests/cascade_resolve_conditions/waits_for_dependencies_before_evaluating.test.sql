begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: first -> gated (forbids {} which every object contains: always unmet once evaluated)
select pgflow.create_flow('wait_flow');
select pgflow.add_step('wait_flow', 'first');
select pgflow.add_step('wait_flow', 'gated', array['first'], forbidden_input_pattern => '{}');
select run_id from pgflow.start_flow('wait_flow', '{}'::jsonb) \gset

-- TEST: not evaluated while remaining_deps > 0
select is(pgflow.cascade_resolve_conditions(:'run_id'), true, 'returns true');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gated'),
  'created',
  'a step with pending dependencies is not evaluated (stays created)'
);

select * from finish();
rollback;

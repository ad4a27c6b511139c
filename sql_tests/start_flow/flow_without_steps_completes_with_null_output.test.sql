begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a flow that has no steps
select pgflow.create_flow('empty_flow');
create temp table returned as select * from pgflow.start_flow('empty_flow', '{"x": 1}'::jsonb);

-- TEST: the run completes inside start_flow
select is((select status from returned), 'completed', 'start_flow returns a completed run');
select results_eq(
  $$select status, remaining_steps, output, completed_at is not null from pgflow.runs$$,
  $$values ('completed'::text, 0, null::jsonb, true)$$,
  'the stored run is completed with remaining_steps 0 and a NULL output'
);
select is((select count(*)::int from pgflow.step_states), 0, 'no step_state exists');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP: two flows, steps added interleaved
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.create_flow('flow_b');
select pgflow.add_step('flow_a', 'a0');
select pgflow.add_step('flow_b', 'b0');
select pgflow.add_step('flow_a', 'a1', array['a0']);
select pgflow.add_step('flow_a', 'a2');
select pgflow.add_step('flow_b', 'b1');

-- TEST: step_index = max index of the flow + 1, starting at 0, counted per flow
select results_eq(
  $$ select step_slug, step_index from pgflow.steps where flow_slug = 'flow_a' order by step_index $$,
  $$ values ('a0'::text, 0), ('a1', 1), ('a2', 2) $$,
  'flow_a steps are numbered 0, 1, 2 in definition order');
select results_eq(
  $$ select step_slug, step_index from pgflow.steps where flow_slug = 'flow_b' order by step_index $$,
  $$ values ('b0'::text, 0), ('b1', 1) $$,
  'flow_b has its own numbering starting at 0');

select * from finish();
rollback;

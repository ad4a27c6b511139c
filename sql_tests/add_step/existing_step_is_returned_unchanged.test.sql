begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'a', timeout => 5);
select pgflow.add_step('flow_a', 'b', array['a'], max_attempts => 2);

-- TEST: a repeated call with the same dependencies but other options changes nothing
select results_eq(
  $$ select step_slug, step_index, opt_max_attempts, opt_timeout
     from pgflow.add_step('flow_a', 'b', array['a'], max_attempts => 9, timeout => 99, step_type => 'map') $$,
  $$ values ('b'::text, 1, 2, null::int) $$,
  'the existing row is returned as it was');
select results_eq(
  $$ select step_type, step_index, opt_max_attempts, opt_timeout, deps_count
     from pgflow.steps where step_slug = 'b' $$,
  $$ values ('single'::text, 1, 2, null::int, 1) $$,
  'the stored step is not updated');
select is((select count(*)::int from pgflow.deps where step_slug = 'b'), 1,
  'no dependency row is duplicated');

-- TEST: the repeated call did not consume a step index
select pgflow.add_step('flow_a', 'c');
select is((select step_index from pgflow.steps where step_slug = 'c'), 2,
  'the next new step gets index 2');
select is((select count(*)::int from pgflow.steps where flow_slug = 'flow_a'), 3,
  'the flow has three steps');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP: diamond root -> left, right -> last
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'root');
select pgflow.add_step('flow_a', 'left', array['root']);
select pgflow.add_step('flow_a', 'right', array['root']);
select pgflow.add_step('flow_a', 'last', array['left', 'right']);

-- TEST: one dependency row per edge, child in step_slug and parent in dep_slug
select results_eq(
  $$ select dep_slug, step_slug from pgflow.deps where flow_slug = 'flow_a' order by step_slug, dep_slug $$,
  $$ values ('left'::text, 'last'::text), ('right', 'last'), ('root', 'left'), ('root', 'right') $$,
  'deps holds (parent, child) for every given dependency');

-- TEST: deps_count is the number of given dependencies
select results_eq(
  $$ select step_slug, deps_count from pgflow.steps where flow_slug = 'flow_a' order by step_index $$,
  $$ values ('root'::text, 0), ('left', 1), ('right', 1), ('last', 2) $$,
  'deps_count counts the given dependencies');
select is((select count(*)::int from pgflow.deps where flow_slug = 'flow_a' and step_slug = 'last'), 2,
  'a step with two dependencies has two dependency rows');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'producer');

-- TEST: a map step with one dependency maps over that parent's output
select lives_ok($$ select pgflow.add_step('flow_a', 'mapper', array['producer'], step_type => 'map') $$,
  'a dependent map step (one dependency) is accepted');
select results_eq(
  $$ select step_type, deps_count, step_index from pgflow.steps where step_slug = 'mapper' $$,
  $$ values ('map'::text, 1, 1) $$,
  'it is stored as a map with deps_count 1');
select results_eq(
  $$ select dep_slug from pgflow.deps where step_slug = 'mapper' $$,
  $$ values ('producer'::text) $$,
  'its dependency row points at the producer');

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');

-- TEST: a map step without dependencies maps over the run input
select lives_ok($$ select pgflow.add_step('flow_a', 'items', step_type => 'map') $$,
  'a root map step (no dependency) is accepted');
select results_eq(
  $$ select step_type, deps_count from pgflow.steps where step_slug = 'items' $$,
  $$ values ('map'::text, 0) $$,
  'it is stored as a map with deps_count 0');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP: c depends on a
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'a');
select pgflow.add_step('flow_a', 'b');
select pgflow.add_step('flow_a', 'c', array['a']);

-- TEST: redefining c with other dependencies is refused (pgflow-py; upstream silently adds
-- the new edge and leaves deps_count at 1, so runs would wait forever on remaining_deps)
select throws_ok($$ select pgflow.add_step('flow_a', 'c', array['a', 'b']) $$, '23505', null,
  'add_step with other dependencies for an existing step raises a unique violation');
select results_eq(
  $$ select dep_slug from pgflow.deps where step_slug = 'c' $$,
  $$ values ('a'::text) $$,
  'no dependency row was added');
select is((select deps_count from pgflow.steps where step_slug = 'c'), 1, 'deps_count is unchanged');

select * from finish();
rollback;

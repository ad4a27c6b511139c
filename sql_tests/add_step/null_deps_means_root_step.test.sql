begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');

-- TEST: deps_slugs NULL is treated like the default '{}'
select lives_ok($$ select pgflow.add_step('flow_a', 'root', deps_slugs => null) $$,
  'add_step accepts deps_slugs NULL');
select results_eq(
  $$ select s.deps_count, (select count(*)::int from pgflow.deps as d where d.step_slug = 'root')
     from pgflow.steps as s where s.step_slug = 'root' $$,
  $$ values (0, 0) $$,
  'the step is a root step: deps_count 0 and no dependency rows');

select * from finish();
rollback;

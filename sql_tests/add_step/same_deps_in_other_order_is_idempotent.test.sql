begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'a');
select pgflow.add_step('flow_a', 'b');
select pgflow.add_step('flow_a', 'c', array['a', 'b']);

-- TEST: the same dependency set in another order counts as the same definition
select lives_ok($$ select pgflow.add_step('flow_a', 'c', array['b', 'a']) $$,
  'repeating add_step with the dependencies reordered does not raise');
select is((select count(*)::int from pgflow.deps where step_slug = 'c'), 2, 'still two dependency rows');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP: a stored flow with a run; the new shape is invalid (map with two dependencies)
select pgflow_tests.reset_db();
select pgflow.create_flow('keep_me');
select pgflow.add_step('keep_me', 'a');
select pgflow.start_flow('keep_me', '{}');

-- TEST: the delete + recreate is all-or-nothing
select throws_matching(
  $$ select pgflow.ensure_flow_compiled('keep_me', pgflow_tests.shape(
       pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'),
       pgflow_tests.shape_step('m', 'map', array['a', 'b'])), allow_data_loss => true) $$,
  'at most one dependency',
  'recompiling to an invalid shape raises');
select is(pgflow._get_flow_shape('keep_me'), pgflow_tests.shape(pgflow_tests.shape_step('a')),
  'the old definition is still in place');
select is((select count(*)::int from pgflow.runs where flow_slug = 'keep_me'), 1,
  'the old run was not deleted');

select * from finish();
rollback;

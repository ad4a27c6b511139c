begin;
select plan(1);

-- TEST: dependencies are a set; their order in the JSON array does not matter
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'),
                       pgflow_tests.shape_step('c', dependencies => array['b', 'a'])),
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'),
                       pgflow_tests.shape_step('c', dependencies => array['a', 'b']))),
  '{}'::text[],
  'the same dependencies in another order are not a difference');

select * from finish();
rollback;

begin;
select plan(2);

-- TEST: dependency lists are printed sorted and joined with comma + space
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'),
                       pgflow_tests.shape_step('c', dependencies => array['b', 'a'])),
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'),
                       pgflow_tests.shape_step('c', dependencies => array['b']))),
  array['Step at index 2: dependencies differ [a, b] vs [b]'],
  'different dependencies are listed sorted: [a, b] vs [b]');

-- TEST: no dependencies print as []
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b')),
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b', dependencies => array['a']))),
  array['Step at index 1: dependencies differ [] vs [a]'],
  'an empty dependency list prints as []');

select * from finish();
rollback;

begin;
select plan(1);

-- TEST: the first shape lacks the step at index 2
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b')),
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'), pgflow_tests.shape_step('c'))),
  array['Step count differs: 2 vs 3',
        'Step at index 2: missing in first shape (second has ''c'')'],
  'a shorter first shape reports the count, then the step missing in the first shape');

select * from finish();
rollback;

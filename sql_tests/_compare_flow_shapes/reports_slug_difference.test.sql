begin;
select plan(1);

-- TEST: same position, other slug
select is(
  pgflow._compare_flow_shapes(pgflow_tests.shape(pgflow_tests.shape_step('a')),
                              pgflow_tests.shape(pgflow_tests.shape_step('z'))),
  array['Step at index 0: slug differs ''a'' vs ''z'''],
  'a renamed step is reported as a slug difference at its index');

select * from finish();
rollback;

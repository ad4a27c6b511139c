begin;
select plan(1);

-- TEST: single in the first shape, map in the second
select is(
  pgflow._compare_flow_shapes(pgflow_tests.shape(pgflow_tests.shape_step('a', 'single')),
                              pgflow_tests.shape(pgflow_tests.shape_step('a', 'map'))),
  array['Step at index 0: type differs ''single'' vs ''map'''],
  'a changed step type is reported');

select * from finish();
rollback;

begin;
select plan(1);

-- TEST
select is(
  pgflow._compare_flow_shapes(pgflow_tests.shape(pgflow_tests.shape_step('a', when_unmet => 'fail')),
                              pgflow_tests.shape(pgflow_tests.shape_step('a', when_unmet => 'skip'))),
  array['Step at index 0: whenUnmet differs ''fail'' vs ''skip'''],
  'a changed whenUnmet is reported');

select * from finish();
rollback;

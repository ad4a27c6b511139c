begin;
select plan(1);

-- TEST
select is(
  pgflow._compare_flow_shapes(pgflow_tests.shape(pgflow_tests.shape_step('a', when_exhausted => 'fail')),
                              pgflow_tests.shape(pgflow_tests.shape_step('a', when_exhausted => 'skip-cascade'))),
  array['Step at index 0: whenExhausted differs ''fail'' vs ''skip-cascade'''],
  'a changed whenExhausted is reported');

select * from finish();
rollback;

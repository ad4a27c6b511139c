begin;
select plan(1);

-- TEST: concurrencyLimit, onLimit, runTimeout and maxInFlight never count as differences
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a', options => '{"maxInFlight": 4}'))
      || '{"options": {"concurrencyLimit": 1, "onLimit": "reject", "runTimeout": 30}}',
    pgflow_tests.shape(pgflow_tests.shape_step('a', options => '{"maxInFlight": 9}'))
      || '{"options": {"concurrencyLimit": 7}}'),
  '{}'::text[],
  'shapes that differ only in limit options are equal');

select * from finish();
rollback;

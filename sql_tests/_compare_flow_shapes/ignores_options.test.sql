begin;
select plan(1);

-- TEST: flow and step options never count as differences
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a',
      options => '{"maxAttempts": 9, "baseDelay": 9, "timeout": 9, "startDelay": 9}'))
      || '{"options": {"maxAttempts": 1, "baseDelay": 2, "timeout": 3}}',
    pgflow_tests.shape(pgflow_tests.shape_step('a'))),
  '{}'::text[],
  'shapes that differ only in options are equal');

select * from finish();
rollback;

begin;
select plan(1);

-- TEST: a forbidden pattern removed in the second shape
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a', forbidden_input_pattern => '{"test": true}')),
    pgflow_tests.shape(pgflow_tests.shape_step('a'))),
  array[format('Step at index 0: forbiddenInputPattern differs ''%s'' vs ''%s''',
               '{"defined": true, "value": {"test": true}}'::jsonb::text,
               '{"defined": false}'::jsonb::text)],
  'a removed forbidden pattern is reported');

select * from finish();
rollback;

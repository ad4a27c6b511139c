begin;
select plan(2);

-- TEST: the whole wrapper is compared and printed as JSON text
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a')),
    pgflow_tests.shape(pgflow_tests.shape_step('a', required_input_pattern => '{"plan": "pro"}'))),
  array[format('Step at index 0: requiredInputPattern differs ''%s'' vs ''%s''',
               '{"defined": false}'::jsonb::text,
               '{"defined": true, "value": {"plan": "pro"}}'::jsonb::text)],
  'a pattern added in the second shape is reported with both wrappers as JSON');

-- TEST: a changed pattern value
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a', required_input_pattern => '{"n": 1}')),
    pgflow_tests.shape(pgflow_tests.shape_step('a', required_input_pattern => '{"n": 2}'))),
  array[format('Step at index 0: requiredInputPattern differs ''%s'' vs ''%s''',
               '{"defined": true, "value": {"n": 1}}'::jsonb::text,
               '{"defined": true, "value": {"n": 2}}'::jsonb::text)],
  'a changed pattern value is reported');

select * from finish();
rollback;

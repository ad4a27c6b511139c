begin;
select plan(1);

-- TEST: indexes ascending; per index the order is slug, type, dependencies, whenUnmet,
-- whenExhausted, requiredInputPattern, forbiddenInputPattern
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'),
                       pgflow_tests.shape_step('x', 'single', array['a'], 'skip', 'fail', null, '{"f": 1}')),
    pgflow_tests.shape(pgflow_tests.shape_step('a', 'map'),
                       pgflow_tests.shape_step('y', 'map', '{}', 'fail', 'skip', '{"r": 1}', null))),
  array['Step at index 0: type differs ''single'' vs ''map''',
        'Step at index 1: slug differs ''x'' vs ''y''',
        'Step at index 1: type differs ''single'' vs ''map''',
        'Step at index 1: dependencies differ [a] vs []',
        'Step at index 1: whenUnmet differs ''skip'' vs ''fail''',
        'Step at index 1: whenExhausted differs ''fail'' vs ''skip''',
        format('Step at index 1: requiredInputPattern differs ''%s'' vs ''%s''',
               '{"defined": false}'::jsonb::text, '{"defined": true, "value": {"r": 1}}'::jsonb::text),
        format('Step at index 1: forbiddenInputPattern differs ''%s'' vs ''%s''',
               '{"defined": true, "value": {"f": 1}}'::jsonb::text, '{"defined": false}'::jsonb::text)],
  'all differences are reported, by index and then in field order');

select * from finish();
rollback;

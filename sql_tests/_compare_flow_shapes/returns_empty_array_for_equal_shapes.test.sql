begin;
select plan(2);

-- SETUP: shapes are built with pgflow_tests.shape / shape_step (worker defaults)

-- TEST: identical shapes have no differences
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'),
                       pgflow_tests.shape_step('b', dependencies => array['a']),
                       pgflow_tests.shape_step('c', 'map', array['b'], 'fail', 'skip', '{"x": 1}', '{"y": 2}')),
    pgflow_tests.shape(pgflow_tests.shape_step('a'),
                       pgflow_tests.shape_step('b', dependencies => array['a']),
                       pgflow_tests.shape_step('c', 'map', array['b'], 'fail', 'skip', '{"x": 1}', '{"y": 2}'))),
  '{}'::text[],
  'equal shapes give an empty array');

-- TEST: two empty shapes are equal
select is(pgflow._compare_flow_shapes('{"steps": []}', '{"steps": []}'), '{}'::text[],
  'two shapes without steps give an empty array');

select * from finish();
rollback;

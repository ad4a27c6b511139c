begin;
select plan(2);

-- TEST: the second shape lacks the steps at index 1 and 2
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b'), pgflow_tests.shape_step('c')),
    pgflow_tests.shape(pgflow_tests.shape_step('a'))),
  array['Step count differs: 3 vs 1',
        'Step at index 1: missing in second shape (first has ''b'')',
        'Step at index 2: missing in second shape (first has ''c'')'],
  'a shorter second shape reports the count and every step missing in the second shape');

-- TEST: against the shape of a flow without steps
select is(
  pgflow._compare_flow_shapes(pgflow_tests.shape(pgflow_tests.shape_step('a')), '{"steps": []}'),
  array['Step count differs: 1 vs 0',
        'Step at index 0: missing in second shape (first has ''a'')'],
  'comparing with an empty shape reports every step as missing');

select * from finish();
rollback;

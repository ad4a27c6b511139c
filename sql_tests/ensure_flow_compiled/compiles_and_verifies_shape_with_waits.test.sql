begin;
select plan(4);

-- SETUP: a shape as the DSL builds it for flow.wait, flow.sleep and @flow.step(wait_for=...)
select pgflow_tests.reset_db();
create temp table dsl as select pgflow_tests.shape(
  pgflow_tests.shape_step('submit'),
  pgflow_tests.shape_step('approved', dependencies => array['submit'])
    || '{"wait": {"kind": "signal", "signal": "approved", "match": null, "timeout": 86400,
                  "onTimeout": "fail", "handler": false}}',
  pgflow_tests.shape_step('cool_off', dependencies => array['approved'])
    || '{"wait": {"kind": "timer", "seconds": 3600, "until": null}}',
  pgflow_tests.shape_step('book', dependencies => array['cool_off'])
    || '{"wait": {"kind": "signal", "signal": "paid", "match": {"currency": "EUR"}, "timeout": null,
                  "onTimeout": "continue", "handler": true}}') as shape;

-- TEST: the shape compiles, then verifies
select is(pgflow.ensure_flow_compiled('expense', (select shape from dsl)),
  '{"status": "compiled", "differences": []}'::jsonb, 'a missing flow with waits is compiled');
select is((select count(*)::int from pgflow.step_waits where flow_slug = 'expense'), 3,
  'its three waits are stored');
select is(pgflow.ensure_flow_compiled('expense', (select shape from dsl)),
  '{"status": "verified", "differences": []}'::jsonb, 'the same shape verifies');
select is(pgflow._get_flow_shape('expense'), (select shape from dsl),
  'the stored shape is the DSL''s shape');

select * from finish();
rollback;

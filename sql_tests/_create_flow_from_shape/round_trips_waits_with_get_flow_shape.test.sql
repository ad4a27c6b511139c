begin;
select plan(1);

-- SETUP: a shape as the DSL sends it (every wait key present)
select pgflow_tests.reset_db();
create temp table given as select pgflow_tests.shape(
  pgflow_tests.shape_step('submit'),
  pgflow_tests.shape_step('approved', dependencies => array['submit'], when_exhausted => 'skip')
    || '{"wait": {"kind": "signal", "signal": "approved", "match": {"a": [1, {"b": null}]}, "timeout": 86400,
                  "onTimeout": "skip", "handler": false}}',
  pgflow_tests.shape_step('cool_off', dependencies => array['approved'])
    || '{"wait": {"kind": "timer", "seconds": 0, "until": null}}',
  pgflow_tests.shape_step('book', dependencies => array['cool_off'], required_input_pattern => '{"cool_off": {}}')
    || '{"wait": {"kind": "signal", "signal": "paid", "match": null, "timeout": null,
                  "onTimeout": "continue", "handler": true}}',
  pgflow_tests.shape_step('remind', dependencies => array['book'])
    || '{"wait": {"kind": "timer", "seconds": null, "until": "book.remind_at"}}') as shape;
select pgflow._create_flow_from_shape('waits', (select shape from given));

-- TEST: the stored definition reads back as the same shape, waits included
select is(pgflow._get_flow_shape('waits'), (select shape from given),
  '_get_flow_shape returns the shape the flow was created from, with its waits');

select * from finish();
rollback;

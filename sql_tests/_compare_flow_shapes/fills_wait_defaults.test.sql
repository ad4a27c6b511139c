begin;
select plan(5);

-- SETUP
create temp table w as select pgflow_tests.shape_step('approved') as plain;

-- TEST: missing keys of a wait take add_wait's / add_timer's defaults
select is(
  (select pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || '{"wait": {"kind": "signal", "signal": "ok"}}'),
     pgflow_tests.shape(plain || '{"wait": {"kind": "signal", "signal": "ok", "match": null, "timeout": null,
                                            "onTimeout": "fail", "handler": true}}')) from w),
  '{}'::text[], 'a signal wait without match, timeout, onTimeout, handler equals the defaults');
select is(
  (select pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || '{"wait": {"kind": "timer", "seconds": 5}}'),
     pgflow_tests.shape(plain || '{"wait": {"kind": "timer", "seconds": 5, "until": null}}')) from w),
  '{}'::text[], 'a timer without until equals until null');
select is(
  (select cardinality(pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || '{"wait": {"kind": "signal", "signal": "ok"}}'),
     pgflow_tests.shape(plain || '{"wait": {"kind": "signal", "signal": "ok", "handler": false}}'))) from w),
  1, 'a missing handler is true, so it differs from handler false');

-- TEST: a JSON null wait is no wait; shapes without waits compare as before
select is(
  (select pgflow._compare_flow_shapes(pgflow_tests.shape(plain || '{"wait": null}'), pgflow_tests.shape(plain)) from w),
  '{}'::text[], 'a null wait equals a missing one');
select is(
  pgflow._compare_flow_shapes(
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b', dependencies => array['a'])),
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b', dependencies => array['a']))),
  '{}'::text[], 'equal shapes without waits are no difference');

select * from finish();
rollback;

begin;
select plan(8);

-- SETUP: a step shape, and that step waiting for a signal with a handler
create temp table w as select
  pgflow_tests.shape_step('approved') as plain,
  '{"kind": "signal", "signal": "approved", "match": {"region": "eu"}, "timeout": 60,
    "onTimeout": "fail", "handler": true}'::jsonb as wait;

-- TEST: equal waits are no difference
select is(
  (select pgflow._compare_flow_shapes(pgflow_tests.shape(plain || jsonb_build_object('wait', wait)),
                                      pgflow_tests.shape(plain || jsonb_build_object('wait', wait))) from w),
  '{}'::text[], 'the same wait on both sides is no difference');

-- TEST: each setting of a signal wait is compared
select is(
  (select pgflow._compare_flow_shapes(pgflow_tests.shape(plain || jsonb_build_object('wait', wait || '{"timeout": 120}')),
                                      pgflow_tests.shape(plain || jsonb_build_object('wait', wait))) from w),
  array['Step at index 0: wait differs '
        '''{"kind": "signal", "match": {"region": "eu"}, "signal": "approved", "handler": true, "timeout": 120, "onTimeout": "fail"}'' vs '
        '''{"kind": "signal", "match": {"region": "eu"}, "signal": "approved", "handler": true, "timeout": 60, "onTimeout": "fail"}'''],
  'a changed timeout is reported with both waits');
select is(
  (select cardinality(pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait || '{"match": {"region": "us"}}')),
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait)))) from w),
  1, 'a changed match is a difference');
select is(
  (select cardinality(pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait || '{"handler": false}')),
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait)))) from w),
  1, 'a changed handler flag is a difference');
select is(
  (select cardinality(pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait || '{"onTimeout": "continue"}')),
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait)))) from w),
  1, 'a changed onTimeout is a difference');
select is(
  (select cardinality(pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait || '{"signal": "rejected"}')),
     pgflow_tests.shape(plain || jsonb_build_object('wait', wait)))) from w),
  1, 'a changed signal name is a difference');

-- TEST: a wait on one side only, printed null on the other
select is(
  (select pgflow._compare_flow_shapes(pgflow_tests.shape(plain),
     pgflow_tests.shape(plain || '{"wait": {"kind": "timer", "seconds": 5, "until": null}}')) from w),
  array['Step at index 0: wait differs ''null'' vs ''{"kind": "timer", "until": null, "seconds": 5}'''],
  'a step that waits in the second shape only is reported');
select is(
  (select pgflow._compare_flow_shapes(
     pgflow_tests.shape(plain || '{"wait": {"kind": "timer", "seconds": 5, "until": null}}'),
     pgflow_tests.shape(plain || '{"wait": {"kind": "timer", "seconds": null, "until": "input.at"}}')) from w),
  array['Step at index 0: wait differs ''{"kind": "timer", "until": null, "seconds": 5}'' vs '
        '''{"kind": "timer", "until": "input.at", "seconds": null}'''],
  'timers of seconds and of a path differ');

select * from finish();
rollback;

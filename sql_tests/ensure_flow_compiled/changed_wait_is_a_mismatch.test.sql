begin;
select plan(7);

-- SETUP: flow expense with a wait; not local; allow_data_loss left false
select pgflow_tests.reset_db();
create temp table dsl as select
  pgflow_tests.shape_step('approved') as step,
  '{"kind": "signal", "signal": "approved", "match": {"region": "eu"}, "timeout": 60,
    "onTimeout": "fail", "handler": true}'::jsonb as wait;
select pgflow.ensure_flow_compiled('expense',
  (select pgflow_tests.shape(step || jsonb_build_object('wait', wait)) from dsl));
create temp table stored as select * from pgflow.step_waits;

-- TEST: a changed timeout, match or handler flag, a removed wait: mismatch, with the difference
select is(
  pgflow.ensure_flow_compiled('expense',
    (select pgflow_tests.shape(step || jsonb_build_object('wait', wait || '{"timeout": 120}')) from dsl)),
  jsonb_build_object('status', 'mismatch', 'differences', jsonb_build_array(
    'Step at index 0: wait differs '
    '''{"kind": "signal", "match": {"region": "eu"}, "signal": "approved", "handler": true, "timeout": 120, "onTimeout": "fail"}'' vs '
    '''{"kind": "signal", "match": {"region": "eu"}, "signal": "approved", "handler": true, "timeout": 60, "onTimeout": "fail"}''')),
  'a changed timeout is a mismatch naming the wait');
select is(
  pgflow.ensure_flow_compiled('expense',
    (select pgflow_tests.shape(step || jsonb_build_object('wait', wait || '{"match": {"region": "us"}}')) from dsl)) ->> 'status',
  'mismatch', 'a changed match is a mismatch');
select is(
  pgflow.ensure_flow_compiled('expense',
    (select pgflow_tests.shape(step || jsonb_build_object('wait', wait || '{"handler": false}')) from dsl)) ->> 'status',
  'mismatch', 'a changed handler flag is a mismatch');
select is(
  pgflow.ensure_flow_compiled('expense', (select pgflow_tests.shape(step) from dsl)) -> 'differences',
  jsonb_build_array('Step at index 0: wait differs ''null'' vs '
    '''{"kind": "signal", "match": {"region": "eu"}, "signal": "approved", "handler": true, "timeout": 60, "onTimeout": "fail"}'''),
  'a removed wait is a mismatch');

-- TEST: nothing changed
select is((select count(*)::int from pgflow.step_waits), 1, 'still one wait');
select is((select to_jsonb(w) from pgflow.step_waits as w), (select to_jsonb(s) from stored as s),
  'the stored wait is unchanged');
select is(
  pgflow.ensure_flow_compiled('expense', (select pgflow_tests.shape(step || jsonb_build_object('wait', wait)) from dsl)),
  '{"status": "verified", "differences": []}'::jsonb, 'the original shape still verifies');

select * from finish();
rollback;

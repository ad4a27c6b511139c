begin;
select plan(3);

-- SETUP: flow expense whose step waits 60 s for "approved", with a run
select pgflow_tests.reset_db();
select pgflow.ensure_flow_compiled('expense', pgflow_tests.shape(
  pgflow_tests.shape_step('approved')
    || '{"wait": {"kind": "signal", "signal": "approved", "timeout": 60, "handler": false}}'));
select pgflow.start_flow('expense', '{}');

-- TEST: allow_data_loss replaces the wait by the new shape's
select is(
  pgflow.ensure_flow_compiled('expense', pgflow_tests.shape(
    pgflow_tests.shape_step('approved') || '{"wait": {"kind": "timer", "seconds": 5}}'),
    allow_data_loss => true) ->> 'status',
  'recompiled', 'a changed wait with allow_data_loss recompiles');
select is(
  (select jsonb_agg(jsonb_build_object('kind', kind, 'seconds', sleep_seconds, 'signal', signal_name))
   from pgflow.step_waits where flow_slug = 'expense'),
  '[{"kind": "timer", "seconds": 5, "signal": null}]'::jsonb,
  'the old wait is gone and the new timer is stored');
select is((select count(*)::int from pgflow.runs where flow_slug = 'expense'), 0,
  'the old run was deleted (data loss)');

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a root step with a fail-mode condition that is unmet
select pgflow.create_flow('strict');
select pgflow.add_step('strict', 'gate', required_input_pattern => '{"ok": true}', when_unmet => 'fail');
select run_id from pgflow.start_flow('strict', '{}'::jsonb) \gset

-- TEST: run:started, step:failed, run:failed
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:gate:failed', 'run:failed'],
  'run:started comes first, then step:gate:failed, then run:failed'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:gate:failed') @> jsonb_build_object(
    'event_type', 'step:failed', 'step_slug', 'gate', 'status', 'failed',
    'error_message', 'Condition not met'),
  'step:failed says Condition not met'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'run:failed') @> jsonb_build_object(
    'event_type', 'run:failed', 'flow_slug', 'strict', 'status', 'failed',
    'error_message', 'Condition not met'),
  'run:failed says Condition not met'
);

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: gate (skip when unmet) and a normal root
select pgflow.create_flow('soft');
select pgflow.add_step('soft', 'gate', required_input_pattern => '{"ok": true}');
select pgflow.add_step('soft', 'normal');
select run_id from pgflow.start_flow('soft', '{}'::jsonb) \gset

-- TEST: run:started precedes the skip and the step starts
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:gate:skipped', 'step:normal:started'],
  'run:started, then step:gate:skipped, then the runnable root starts'
);
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'step:gate:skipped')),
  array['event_type', 'flow_slug', 'run_id', 'skip_reason', 'skipped_at', 'status', 'step_slug'],
  'a condition step:skipped carries exactly event_type, run_id, flow_slug, step_slug, status, skip_reason, skipped_at'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:gate:skipped') @> jsonb_build_object(
    'event_type', 'step:skipped', 'run_id', :'run_id', 'flow_slug', 'soft', 'step_slug', 'gate',
    'status', 'skipped', 'skip_reason', 'condition_unmet'),
  'step:skipped has skip_reason condition_unmet'
);

select * from finish();
rollback;

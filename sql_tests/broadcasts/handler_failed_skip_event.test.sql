begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: "optional" has when_exhausted skip, "other" keeps the run alive
select pgflow.create_flow('soft_fail', max_attempts => 1);
select pgflow.add_step('soft_fail', 'optional', when_exhausted => 'skip');
select pgflow.add_step('soft_fail', 'other');
select run_id from pgflow.start_flow('soft_fail', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'optional', 0, 'meh');

-- TEST: one step:skipped, no failure events
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:optional:started', 'step:other:started', 'step:optional:skipped'],
  'an exhausted skip-mode step emits step:skipped and no step:failed / run:failed'
);
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'step:optional:skipped')),
  array['error_message', 'event_type', 'run_id', 'skip_reason', 'skipped_at', 'status', 'step_slug'],
  'the handler_failed step:skipped carries error_message and no flow_slug'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:optional:skipped') @> jsonb_build_object(
    'event_type', 'step:skipped', 'step_slug', 'optional', 'status', 'skipped',
    'skip_reason', 'handler_failed', 'error_message', 'meh'),
  'step:skipped says handler_failed with the error'
);

select * from finish();
rollback;

begin;
select plan(5);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: first fails for good (1 attempt)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'first', 0, 'kaput');

-- TEST: step:failed then run:failed
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:first:started', 'step:first:failed', 'run:failed'],
  'step:first:failed precedes run:failed'
);

-- TEST: payloads
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'step:first:failed')),
  array['error_message', 'event_type', 'failed_at', 'run_id', 'status', 'step_slug'],
  'step:failed carries exactly event_type, run_id, step_slug, status, error_message, failed_at'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:first:failed') @> jsonb_build_object(
    'event_type', 'step:failed', 'run_id', :'run_id', 'step_slug', 'first',
    'status', 'failed', 'error_message', 'kaput'),
  'step:failed has the error'
);
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'run:failed')),
  array['error_message', 'event_type', 'failed_at', 'flow_slug', 'run_id', 'status'],
  'run:failed carries exactly event_type, run_id, flow_slug, status, error_message, failed_at'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'run:failed') @> jsonb_build_object(
    'event_type', 'run:failed', 'run_id', :'run_id', 'flow_slug', 'sequential',
    'status', 'failed', 'error_message', 'kaput'),
  'run:failed carries the failing task''s error'
);

select * from finish();
rollback;

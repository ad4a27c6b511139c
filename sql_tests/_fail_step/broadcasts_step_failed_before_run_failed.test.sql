begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: first -> second -> last; first's task started, then the step fails
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
select pgflow._fail_step(:'run_id', 'first', 'boom', 'boom');

-- TEST: step:failed, then run:failed
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:first:started', 'step:first:failed', 'run:failed'],
  'step:first:failed comes before run:failed'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:first:failed') @> jsonb_build_object(
    'event_type', 'step:failed', 'step_slug', 'first', 'status', 'failed', 'error_message', 'boom')
  and pgflow_tests.event_payload(:'run_id', 'step:first:failed') ? 'failed_at',
  'step:failed carries the error message and failed_at'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'run:failed') ->> 'error_message',
  'boom',
  'run:failed carries the same message'
);

select * from finish();
rollback;

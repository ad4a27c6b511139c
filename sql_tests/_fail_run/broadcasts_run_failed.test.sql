begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two started runs, failed with and without an error message
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_run(:'r1', 'boom');
select pgflow._fail_run(:'r2', null);

-- TEST: run:failed is broadcast after the run's earlier events
select is(
  pgflow_tests.run_events(:'r1'),
  array['run:started', 'step:first:started', 'run:failed'],
  'run:failed is the last event of the run'
);
select ok(
  pgflow_tests.event_payload(:'r1', 'run:failed') @> jsonb_build_object(
    'event_type', 'run:failed', 'run_id', :'r1'::uuid, 'flow_slug', 'sequential',
    'status', 'failed', 'error_message', 'boom')
  and pgflow_tests.event_payload(:'r1', 'run:failed') ? 'failed_at',
  'the payload carries flow_slug, status, failed_at and the error message'
);

-- TEST: a NULL error message is left out of the payload
select ok(
  pgflow_tests.event_payload(:'r2', 'run:failed') @> jsonb_build_object('event_type', 'run:failed', 'status', 'failed'),
  'run:failed is broadcast without an error message too'
);
select ok(
  not pgflow_tests.event_payload(:'r2', 'run:failed') ? 'error_message',
  'with error_message NULL the payload has no error_message key'
);

select * from finish();
rollback;

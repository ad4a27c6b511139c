begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two runs; "second" fails its condition, with realtime true and false
select pgflow_tests.setup_flow('sequential');
select run_id as r_on from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r_off from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_run_by_condition(:'r_on', 'second', true);
select pgflow._fail_run_by_condition(:'r_off', 'second', false);

-- TEST: realtime true: step:failed before run:failed
select is(
  pgflow_tests.run_events(:'r_on'),
  array['run:started', 'step:first:started', 'step:second:failed', 'run:failed'],
  'step:second:failed comes before run:failed'
);
select ok(
  pgflow_tests.event_payload(:'r_on', 'step:second:failed') @> jsonb_build_object(
    'event_type', 'step:failed', 'step_slug', 'second', 'status', 'failed', 'error_message', 'Condition not met'),
  'step:failed says Condition not met'
);
select is(
  pgflow_tests.event_payload(:'r_on', 'run:failed') ->> 'error_message',
  'Condition not met',
  'run:failed says Condition not met'
);

-- TEST: realtime false: no step event (the run event is _fail_run's)
select is(
  pgflow_tests.run_events(:'r_off'),
  array['run:started', 'step:first:started', 'run:failed'],
  'with realtime false no step:failed is broadcast'
);

select * from finish();
rollback;

begin;
select plan(7);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{"k": "v"}'::jsonb) \gset

-- TEST: events in order
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:first:started'],
  'start_flow emits run:started then step:first:started'
);

-- TEST: run:started payload
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'run:started')),
  array['event_type', 'flow_slug', 'input', 'remaining_steps', 'run_id', 'started_at', 'status'],
  'run:started carries exactly event_type, run_id, flow_slug, input, status, remaining_steps, started_at'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'run:started') @> jsonb_build_object(
    'event_type', 'run:started', 'run_id', :'run_id', 'flow_slug', 'sequential',
    'input', '{"k": "v"}'::jsonb, 'status', 'started', 'remaining_steps', 3),
  'run:started has the run values'
);
select is(
  (pgflow_tests.event_payload(:'run_id', 'run:started') ->> 'started_at')::timestamptz,
  (select started_at from pgflow.runs where run_id = :'run_id'),
  'run:started started_at is the run''s started_at'
);

-- TEST: step:started payload
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'step:first:started')),
  array['event_type', 'remaining_deps', 'remaining_tasks', 'run_id', 'started_at', 'status', 'step_slug'],
  'step:started carries exactly event_type, run_id, step_slug, status, started_at, remaining_tasks, remaining_deps'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:first:started') @> jsonb_build_object(
    'event_type', 'step:started', 'run_id', :'run_id', 'step_slug', 'first',
    'status', 'started', 'remaining_tasks', 1, 'remaining_deps', 0),
  'step:started has the step values'
);

-- TEST: topic and private flag
select results_eq(
  $$select distinct topic, private from realtime.messages$$,
  format($$values ('pgflow:run:%s'::text, false)$$, :'run_id'),
  'events go to topic pgflow:run:<run_id> with private = false'
);

select * from finish();
rollback;

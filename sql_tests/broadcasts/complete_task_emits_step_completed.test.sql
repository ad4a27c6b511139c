begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '{"r": 1}'::jsonb);

-- TEST: completion, then the child's start
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:first:started', 'step:first:completed', 'step:second:started'],
  'complete_task emits step:first:completed before step:second:started'
);

-- TEST: step:completed payload
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'step:first:completed')),
  array['completed_at', 'event_type', 'output', 'run_id', 'status', 'step_slug'],
  'step:completed carries exactly event_type, run_id, step_slug, status, output, completed_at'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:first:completed') @> jsonb_build_object(
    'event_type', 'step:completed', 'run_id', :'run_id', 'step_slug', 'first',
    'status', 'completed', 'output', '{"r": 1}'::jsonb),
  'step:completed has the stored output'
);
select is(
  (pgflow_tests.event_payload(:'run_id', 'step:first:completed') ->> 'completed_at')::timestamptz,
  (select completed_at from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  'completed_at matches the step state'
);

select * from finish();
rollback;

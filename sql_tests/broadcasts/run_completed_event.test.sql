begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a one-step flow run to completion
select pgflow.create_flow('one');
select pgflow.add_step('one', 'only');
select run_id from pgflow.start_flow('one', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'only', 0, '"out"'::jsonb);

-- TEST: run:completed is the last event
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:only:started', 'step:only:completed', 'run:completed'],
  'run:completed follows the last step:completed'
);
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'run:completed')),
  array['completed_at', 'event_type', 'flow_slug', 'output', 'run_id', 'status'],
  'run:completed carries exactly event_type, run_id, flow_slug, status, output, completed_at'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'run:completed') @> jsonb_build_object(
    'event_type', 'run:completed', 'run_id', :'run_id', 'flow_slug', 'one',
    'status', 'completed', 'output', '{"only": "out"}'::jsonb),
  'run:completed has the run values'
);

-- TEST: no second run:completed
select pgflow.maybe_complete_run(:'run_id');
select is(
  (select count(*)::int from realtime.messages where event = 'run:completed'),
  1,
  'maybe_complete_run on a completed run broadcasts nothing more'
);

select * from finish();
rollback;

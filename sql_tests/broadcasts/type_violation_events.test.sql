begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: producer -> mapper (map); producer returns an object
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '{"no": "array"}'::jsonb);

-- TEST: both failure events, no completion
select ok(
  pgflow_tests.run_events(:'run_id') @> array['step:producer:failed', 'run:failed']
  and not pgflow_tests.run_events(:'run_id') && array['step:producer:completed', 'run:completed'],
  'a type violation emits step:producer:failed and run:failed, and no completion'
);
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'run:failed')),
  array['event_type', 'failed_at', 'flow_slug', 'run_id', 'status'],
  'the type-violation run:failed has no error_message'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'step:producer:failed') ->> 'error_message',
  '[TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced object',
  'step:failed carries the step error message'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'step:producer:failed') ->> 'status',
  'failed',
  'step:failed has status failed'
);

select * from finish();
rollback;

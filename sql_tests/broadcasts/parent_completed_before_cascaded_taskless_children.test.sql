begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: producer -> mapper (map) -> reducer; producer returns []
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[]'::jsonb);

-- TEST: the parent's completion comes before the cascaded child's
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:producer:started', 'step:producer:completed',
        'step:mapper:completed', 'step:reducer:started'],
  'step:producer:completed, then the taskless step:mapper:completed, then step:reducer:started'
);

-- TEST: the cascade payload has the extra fields
select is(
  pgflow_tests.json_keys(pgflow_tests.event_payload(:'run_id', 'step:mapper:completed')),
  array['completed_at', 'event_type', 'output', 'remaining_deps', 'remaining_tasks', 'run_id',
        'started_at', 'status', 'step_slug'],
  'the taskless step:completed also carries started_at, remaining_tasks and remaining_deps'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:mapper:completed') @> jsonb_build_object(
    'event_type', 'step:completed', 'run_id', :'run_id', 'step_slug', 'mapper',
    'status', 'completed', 'output', '[]'::jsonb, 'remaining_tasks', 0, 'remaining_deps', 0),
  'the taskless map completes with output [] and zero counters'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'step:producer:completed') -> 'output',
  '[]'::jsonb,
  'the parent event carries its own output'
);

select * from finish();
rollback;

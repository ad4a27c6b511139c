begin;
select plan(2);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a root map over [] -> dependent map
select pgflow.create_flow('empty_maps');
select pgflow.add_step('empty_maps', 'm1', step_type => 'map');
select pgflow.add_step('empty_maps', 'm2', array['m1'], step_type => 'map');
select run_id from pgflow.start_flow('empty_maps', '[]'::jsonb) \gset

-- TEST: run:started first, cascade in step order, run:completed last
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:m1:completed', 'step:m2:completed', 'run:completed'],
  'start_flow emits run:started, the cascaded completions in order, then run:completed'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'run:completed') -> 'output',
  '{"m2": []}'::jsonb,
  'run:completed carries the run output'
);

select * from finish();
rollback;

begin;
select plan(2);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a root map of three, completed out of order
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 1, 10);
select pgflow.complete_task(:'run_id', 'items', 1, '"b"'::jsonb);
select pgflow.complete_task(:'run_id', 'items', 2, '"c"'::jsonb);
select pgflow.complete_task(:'run_id', 'items', 0, '"a"'::jsonb);

-- TEST: one step:completed for the whole map, with the aggregated output
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:items:started', 'step:items:completed', 'run:completed'],
  'a map step emits a single step:completed after its last task'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'step:items:completed') -> 'output',
  '["a", "b", "c"]'::jsonb,
  'the broadcast output is the stored array ordered by task_index'
);

select * from finish();
rollback;

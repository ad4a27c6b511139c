begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: producer -> mapper (map); producer's task started, then reported twice in one
-- call with non-array outputs
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'producer');

-- TEST: the first report fails the task and the run, the repeat is ignored (run failed)
select results_eq(
  format($$select status, outcome, reason from pgflow.complete_tasks(
      array[%1$L, %1$L]::uuid[], array['producer', 'producer'], array[0, 0],
      array['{"a": 1}', '"x"']::jsonb[])$$, :'run_id'),
  $$values ('failed'::text, 'failed'::text, 'type_violation'::text), ('failed', 'ignored', 'run_failed')$$,
  'a task named twice is failed once; the second report is ignored'
);
select is(
  (select output from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'producer'),
  '{"a": 1}'::jsonb,
  'the task keeps the first item''s output'
);
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:producer:started', 'step:producer:failed', 'run:failed'],
  'step:failed is broadcast once, before run:failed'
);

select * from finish();
rollback;

begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: producer -> mapper (map); producer's task started, then reported twice in one
-- call with non-array outputs
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'producer');

-- TEST: the first item fails the task, the repeat is ignored (the task was named earlier)
select results_eq(
  format($$select ord, outcome, reason from pgflow._complete_tasks(
      array[1, 2], array[%1$L, %1$L]::uuid[], array['producer', 'producer'], array[0, 0],
      array['{"a": 1}', '"x"']::jsonb[], null)$$, :'run_id'),
  $$values (1, 'failed'::text, 'type_violation'::text), (2, 'ignored', 'task_not_started')$$,
  'a task named twice is failed once; the second item is ignored'
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

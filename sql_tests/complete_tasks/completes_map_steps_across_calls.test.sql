begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: map_chain (producer -> mapper (map) -> reducer); producer done with 4 elements
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('map_chain', 30, 10);
select count(*) from pgflow.complete_tasks(array[:'run_id']::uuid[], array['producer'], array[0],
  array['[10, 20, 30, 40]']::jsonb[]);
select count(*) from pgflow_tests.read_and_start('map_chain', 30, 10);

-- TEST: part of the map completes: remaining_tasks drops by the number completed
select count(*) from pgflow.complete_tasks(array[:'run_id', :'run_id']::uuid[], array['mapper', 'mapper'],
  array[3, 1], array['"d"', '"b"']::jsonb[]);
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states
           where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('started'::text, 2, null::jsonb)$$,
  'two of four tasks done: the map is still started with 2 remaining'
);
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'reducer'), 0,
  'the reducer waits');

-- TEST: the rest completes it with outputs in task_index order
select results_eq(
  format($$select task_index, status from pgflow.complete_tasks(array[%L, %L]::uuid[],
      array['mapper', 'mapper'], array[2, 0], array['"c"', 'null']::jsonb[])$$, :'run_id', :'run_id'),
  $$values (2, 'completed'::text), (0, 'completed')$$,
  'the last two complete'
);
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states
           where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('completed'::text, 0, '[null, "b", "c", "d"]'::jsonb)$$,
  'the map output is the array of task outputs by task_index (JSON null kept)'
);
select is(
  (select input from pgflow_tests.read_and_start('map_chain', 30, 10)),
  '{"mapper": [null, "b", "c", "d"]}'::jsonb,
  'the reducer starts with the aggregated map output'
);
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 1, 'one step left');

select * from finish();
rollback;

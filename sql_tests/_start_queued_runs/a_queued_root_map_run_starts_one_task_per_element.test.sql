begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: flow maps, at most 1 run per key: root map items over the input, then single total
select pgflow.create_flow('maps', max_attempts => 1, concurrency_limit => 1);
select pgflow.add_step('maps', 'items', step_type => 'map');
select pgflow.add_step('maps', 'total', array['items']);
select run_id as holder from pgflow.start_flow('maps', '[1]', concurrency_key => 'ck') \gset
select run_id as queued from pgflow.start_flow('maps', '[10, 20, 30]', concurrency_key => 'ck') \gset
select run_id as queued_empty from pgflow.start_flow('maps', '[]', concurrency_key => 'ck') \gset
select results_eq(
  format($$select status from pgflow.runs where run_id in (%L, %L) order by queue_seq$$, :'queued', :'queued_empty'),
  $$values ('queued'::text), ('queued')$$,
  'setup: the array runs are queued (also the empty one, which would complete at once)'
);

-- TEST: when the holder ends, the queued root map run starts with one task per element
select pgflow.cancel_run(:'holder', 'tester', null);
select results_eq(
  format($$select step_slug, status, initial_tasks, remaining_tasks from pgflow.step_states
           where run_id = %L order by step_slug$$, :'queued'),
  $$values ('items'::text, 'started'::text, 3, 3), ('total', 'created', 1, null)$$,
  'items started with 3 tasks; total waits'
);
select is(
  (select array_agg(task_index order by task_index) from pgflow.step_tasks where run_id = :'queued' and status = 'queued'),
  array[0, 1, 2],
  'tasks 0, 1, 2 are queued'
);

-- TEST: the empty one starts when the map run ends: its empty map completes at once and
-- total starts
select pgflow.cancel_run(:'queued', 'tester', null);
select is(pgflow_tests.run_status(:'queued_empty'), 'started', 'the empty root map run starts');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'queued_empty'),
  $$values ('items'::text, 'completed'::text), ('total', 'started')$$,
  'its empty map completed, total started'
);

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a root map with three tasks, all completed, and the step set completed by its
-- caller (rows written as _complete_tasks does: a map's output left for _complete_steps)
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 3);
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = to_jsonb(array['a', 'b', 'c'])->task_index
where run_id = :'run_id';
update pgflow.step_states set status = 'completed', completed_at = now(), remaining_tasks = 0
where run_id = :'run_id' and step_slug = 'items';
select pgflow._complete_steps(array[:'run_id']::uuid[], array['items']);

-- TEST: the map step gets its task outputs in task_index order
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '["a", "b", "c"]'::jsonb)$$,
  'the map step''s output is ["a", "b", "c"]'
);

-- TEST: the run moves forward (here: completes) and the events are recorded
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"items": ["a", "b", "c"]}'::jsonb)$$,
  'the run completes with the map output'
);
select is(
  (select array_agg(e.event order by e.id) from pgflow.run_events as e
   where e.run_id = :'run_id' and e.event in ('step:completed', 'run:completed')),
  array['step:completed', 'run:completed'],
  'the audit trail records step:completed, then run:completed'
);
select is(pgflow_tests.queue_count('root_map'), 3::bigint, 'messages are the caller''s job (still in the queue)');

select * from finish();
rollback;

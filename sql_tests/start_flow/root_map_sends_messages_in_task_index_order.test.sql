begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root map over a three-element input
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '["a", "b", "c"]'::jsonb) \gset

-- TEST: one task per element, indices 0..n-1
select results_eq(
  format($$select task_index, status from pgflow.step_tasks
           where run_id = %L order by task_index$$, :'run_id'),
  $$values (0, 'queued'::text), (1, 'queued'), (2, 'queued')$$,
  'a root map gets one queued task per input element, indexed 0..n-1'
);

-- TEST: step started with remaining_tasks = 3
select is(
  (select remaining_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'items'),
  3,
  'the map step is started with remaining_tasks = number of elements'
);

-- TEST: message ids are paired with task indices by position
select results_eq(
  format($$select t.task_index, (q.message ->> 'task_index')::int
           from pgflow.step_tasks as t join pgmq.q_root_map as q on q.msg_id = t.message_id
           where t.run_id = %L order by t.task_index$$, :'run_id'),
  $$values (0, 0), (1, 1), (2, 2)$$,
  'each task points at the message carrying its own task_index'
);
select ok(
  (select bool_and(ordered) from (
     select message_id > lag(message_id) over (order by task_index) as ordered
     from pgflow.step_tasks where run_id = :'run_id'
   ) as s where ordered is not null),
  'messages are sent in task_index order (message ids increase with task_index)'
);

select * from finish();
rollback;

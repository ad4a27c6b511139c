begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two runs of a one-step flow and one of a root map over one element, their steps
-- started by hand, queued with maps given (the path that looks nothing up)
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select pgflow_tests.setup_flow('root_map');
select run_id as r1 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('root_map', '["x"]'::jsonb) \gset
delete from pgflow.step_tasks;
delete from pgflow.map_task_inputs;
select pgflow._queue_step_tasks('one_step', 0, array[:'r1', :'r2']::uuid[], array['only', 'only'],
                                array[1, 1], maps => false);
select pgflow._queue_step_tasks('root_map', 0, array[:'r3']::uuid[], array['items'], array[1], maps => true);

-- TEST: one task per step, task_index 0, messages in array order
select results_eq(
  format($$select run_id, task_index, status from pgflow.step_tasks where step_slug = 'only'
           order by message_id$$),
  format($$values (%L::uuid, 0, 'queued'::text), (%L::uuid, 0, 'queued'::text)$$, :'r1', :'r2'),
  'each run gets task 0, queued, its message sent in array order'
);
select is(
  (select array_agg(message ->> 'run_id' order by msg_id) from pgmq.q_one_step
   where msg_id in (select message_id from pgflow.step_tasks where step_slug = 'only')),
  array[:'r1', :'r2']::text[],
  'the messages name the tasks'
);

-- TEST: maps true: the map step's element is stored for its one task
select is(
  (select inputs from pgflow.map_task_inputs where run_id = :'r3' and step_slug = 'items'),
  '["x"]'::jsonb,
  'the element of the one-task map is stored'
);
select is((select count(*)::int from pgflow.map_task_inputs where run_id in (:'r1', :'r2')), 0,
  'maps false stores no element');

select * from finish();
rollback;

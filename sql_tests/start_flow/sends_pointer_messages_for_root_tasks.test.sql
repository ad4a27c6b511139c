begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{"payload": "not in the message"}'::jsonb) \gset

-- TEST: the message id stored on the task is a message of the flow queue
select ok(
  pgflow_tests.message_exists('sequential', pgflow_tests.task_msg_id(:'run_id', 'first')),
  'the task message_id refers to a message in pgmq.q_sequential'
);

-- TEST: the message body is exactly the task pointer
select is(
  (select message from pgmq.q_sequential
   where msg_id = pgflow_tests.task_msg_id(:'run_id', 'first')),
  jsonb_build_object('flow_slug', 'sequential', 'run_id', :'run_id'::uuid,
                     'step_slug', 'first', 'task_index', 0),
  'the message body is {flow_slug, run_id, step_slug, task_index} and nothing else'
);

-- TEST: task_index is a JSON number
select is(
  (select jsonb_typeof(message -> 'task_index') from pgmq.q_sequential),
  'number',
  'task_index in the message is a JSON number'
);

select * from finish();
rollback;

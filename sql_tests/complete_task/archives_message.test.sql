begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'first') as msg_id \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first');

-- TEST: the message is archived, not deleted
select ok(
  not pgflow_tests.message_exists('sequential', :msg_id::bigint, 'q'),
  'the completed task''s message left the queue'
);
select ok(
  pgflow_tests.message_exists('sequential', :msg_id::bigint, 'a'),
  'the completed task''s message is in the archive'
);

select * from finish();
rollback;

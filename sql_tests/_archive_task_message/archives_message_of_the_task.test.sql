begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with three queued tasks
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select pgflow._archive_task_message(:'run_id', 'items', 1);

-- TEST: exactly that message moved to the archive
select ok(
  pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run_id', 'items', 1), 'a'),
  'the task''s message is archived'
);
select ok(
  not pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run_id', 'items', 1), 'q'),
  'it is no longer in the queue'
);
select is(pgflow_tests.queue_count('root_map'), 2::bigint, 'the other tasks'' messages stay queued');

select * from finish();
rollback;

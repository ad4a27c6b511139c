begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a root map with three queued tasks, task 0's message already archived
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select pgflow._archive_messages('root_map', array[pgflow_tests.task_msg_id(:'run_id', 'items', 0)]);

-- TEST: NULL and empty arrays are accepted and change nothing
select lives_ok($$select pgflow._archive_messages('root_map', null)$$, 'NULL msg_ids are accepted');
select lives_ok($$select pgflow._archive_messages('root_map', '{}')$$, 'empty msg_ids are accepted');
select is(pgflow_tests.queue_count('root_map'), 2::bigint, 'the queue still holds two messages');

-- TEST: ids no longer in the queue (archived, unknown) are ignored next to live ones
select pgflow._archive_messages('root_map', array[
  pgflow_tests.task_msg_id(:'run_id', 'items', 0), 987654321::bigint, pgflow_tests.task_msg_id(:'run_id', 'items', 1)]);
select is(pgflow_tests.queue_count('root_map', 'a'), 2::bigint, 'the archive holds task 0 once and task 1');
select is(pgflow_tests.queue_count('root_map'), 1::bigint, 'task 2''s message stays queued');

select * from finish();
rollback;

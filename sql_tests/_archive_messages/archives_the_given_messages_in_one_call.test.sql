begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a root map with three queued tasks; archive the messages of tasks 0 and 2
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select pgflow._archive_messages('root_map', array[
  pgflow_tests.task_msg_id(:'run_id', 'items', 0), pgflow_tests.task_msg_id(:'run_id', 'items', 2)]);

-- TEST: exactly those two moved to the archive
select ok(pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run_id', 'items', 0), 'a'), 'task 0''s message is archived');
select ok(pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run_id', 'items', 2), 'a'), 'task 2''s message is archived');
select ok(pgflow_tests.message_exists('root_map', pgflow_tests.task_msg_id(:'run_id', 'items', 1), 'q'), 'task 1''s message stays queued');
select is(pgflow_tests.queue_count('root_map'), 1::bigint, 'one message is left in the queue');

-- TEST: only messages move; the tasks are untouched
select results_eq(
  format($$select task_index, status from pgflow.step_tasks where run_id = %L order by task_index$$, :'run_id'),
  $$values (0, 'queued'::text), (1, 'queued'), (2, 'queued')$$,
  'the step_tasks rows keep their status'
);

select * from finish();
rollback;

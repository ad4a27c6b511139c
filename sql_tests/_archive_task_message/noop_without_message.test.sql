begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: one task without message_id, and calls for an unknown task
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
update pgflow.step_tasks set message_id = null where run_id = :'run_id';

-- TEST: nothing to archive is not an error
select lives_ok(
  format($$select pgflow._archive_task_message(%L, 'first', 0)$$, :'run_id'),
  'a task without message_id is accepted'
);
select lives_ok(
  format($$select pgflow._archive_task_message(%L, 'no_such_step', 7)$$, :'run_id'),
  'an unknown task is accepted'
);
select is(pgflow_tests.queue_count('sequential', 'a'), 0::bigint, 'nothing is archived');

select * from finish();
rollback;

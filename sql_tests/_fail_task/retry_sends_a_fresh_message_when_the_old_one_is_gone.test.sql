begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: one step, 3 attempts, base_delay 5; the task started, then its message archived
-- (as the stalled-task requeue does when it gives up on a task)
select pgflow.create_flow('fresh', max_attempts => 3, base_delay => 5);
select pgflow.add_step('fresh', 'only');
select run_id from pgflow.start_flow('fresh', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'only');
select pgflow_tests.task_msg_id(:'run_id', 'only') as old_msg \gset
select pgflow._archive_task_message(:'run_id', 'only', 0);

-- TEST: retried, with a new message
select is(
  (select outcome from pgflow._fail_task(:'run_id', 'only', 0, 'boom', 1)),
  'retried',
  'the failure is retried'
);
select isnt(pgflow_tests.task_msg_id(:'run_id', 'only'), :old_msg::bigint, 'the task points at a new message');

-- TEST: the new message is the task's pointer, delayed by the backoff
select is(
  (select q.message from pgmq.q_fresh as q where q.msg_id = pgflow_tests.task_msg_id(:'run_id', 'only')),
  jsonb_build_object('flow_slug', 'fresh', 'run_id', :'run_id'::uuid, 'step_slug', 'only', 'task_index', 0),
  'the new message points at the task'
);
select cmp_ok(
  pgflow_tests.message_vt_seconds('fresh', pgflow_tests.task_msg_id(:'run_id', 'only')),
  '>', 5::numeric,
  'it is hidden for about calculate_retry_delay(5, 1) = 10 s'
);

select * from finish();
rollback;

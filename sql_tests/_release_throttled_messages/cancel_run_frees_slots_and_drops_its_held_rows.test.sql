begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: max_in_flight 2 shared by runs A (2 elements, both started) and B (3 elements, held)
select pgflow.create_flow('cx');
select pgflow.add_step('cx', 'items', step_type => 'map', max_in_flight => 2);
select run_id as a from pgflow.start_flow('cx', '[0, 1]'::jsonb) \gset
select run_id as b from pgflow.start_flow('cx', '[0, 1, 2]'::jsonb) \gset
select pgflow_tests.claim('cx', 'aaaaaaaa-0000-0000-0000-00000000000a', 10);
select is((select count(*) from pgflow.step_tasks where run_id = :'a' and status = 'started'), 2::bigint,
  'precondition: A''s two tasks started');
select is(pgflow_tests.held_count('cx'), 3::bigint, 'precondition: B''s three tasks held');

-- TEST: cancelling A frees both slots: two of B's messages are released, the oldest first
select pgflow.cancel_run(:'a', 'ops', 'test');
select is(pgflow_tests.visible_task_messages('cx', 'items'), 2::bigint, 'two of B''s messages are visible');
select ok(pgflow_tests.message_vt('cx', pgflow_tests.task_msg_id(:'b', 'items', 0)) <= clock_timestamp()
          and pgflow_tests.message_vt('cx', pgflow_tests.task_msg_id(:'b', 'items', 1)) <= clock_timestamp(),
  'B''s tasks 0 and 1');
select is((select array_agg(task_index) from pgflow.step_tasks
           where message_id in (select message_id from pgflow.throttled_messages)),
  array[2], 'B''s task 2 stays held');

-- TEST: cancelling B, whose task 2 is held: its row is dropped, nothing is released, and
-- the message is archived with the others
select pgflow.cancel_run(:'b', 'ops', 'test');
select is(pgflow_tests.held_count('cx'), 0::bigint, 'the held row of the cancelled task is dropped');
select is(pgflow_tests.queue_count('cx'), 0::bigint, 'no message left in the queue');
select is(pgflow_tests.run_leftovers(:'b') ->> 'archived_messages', '3', 'B''s three messages are archived');

select * from finish();
rollback;

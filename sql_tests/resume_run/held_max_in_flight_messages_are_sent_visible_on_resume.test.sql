begin;
select plan(16);
select pgflow_tests.reset_db();

-- SETUP: flow hm (3 attempts, base_delay 100): map step items with max_in_flight 1 over 4
-- elements, root slow (start_delay 60 s) and root flaky. One claim starts items task 0 and
-- flaky, holds items tasks 1-3 (throttled_messages, vt ~300 s); flaky fails once (retry in
-- 200 s). Then the run is paused: its queued tasks are parked.
select pgflow.create_flow('hm', max_attempts => 3, base_delay => 100);
select pgflow.add_step('hm', 'items', step_type => 'map', max_in_flight => 1);
select pgflow.add_step('hm', 'slow', start_delay => 60);
select pgflow.add_step('hm', 'flaky');
select run_id as run from pgflow.start_flow('hm', '[0, 1, 2, 3]'::jsonb) \gset
select pgflow_tests.claim('hm', 'aaaaaaaa-0000-0000-0000-00000000000a', 10);
select count(*) from pgflow.fail_task(:'run', 'flaky', 0, 'boom', 1);
create temp table old_held as
  select tm.message_id from pgflow.throttled_messages as tm where tm.flow_slug = 'hm';

-- TEST: setup: items task 0 started, 1-3 held about 300 s
select is(pgflow_tests.task_statuses('hm', 'items'), '{"queued": 3, "started": 1}'::jsonb,
  'setup: one items task started, three queued');
select ok((select count(*) = 3 and bool_and(task_status = 'queued' and vt_seconds between 290 and 301)
           from pgflow_tests.held_messages('hm', 'items')),
  'setup: the three queued items tasks are held, hidden about 300 s');

select count(*) from pgflow.pause_run(:'run', 'ops', 'hold');
select count(*) from pgflow.resume_run(:'run', 'ops', 'go');

-- TEST: the held tasks get new messages, visible now; their old held rows are gone
select is(
  (select count(*) from pgflow.step_tasks as t
   where t.run_id = :'run' and t.step_slug = 'items' and t.status = 'queued'
     and t.message_id not in (select message_id from old_held)),
  3::bigint, 'the three held tasks have new message ids');
select is(pgflow_tests.visible_task_messages('hm', 'items'), 3::bigint,
  'their new messages are visible now (vt <= clock_timestamp()), not ~300 s away');
select is(
  (select count(*) from pgflow.throttled_messages where message_id in (select message_id from old_held)),
  0::bigint, 'their old throttled_messages rows are gone');
select is(pgflow_tests.held_count('hm'), 0::bigint, 'no held row is left at all');

-- TEST: the delayed tasks (not held) keep what is left of their delays
select ok(pgflow_tests.message_vt_seconds('hm', pgflow_tests.task_msg_id(:'run', 'slow')) between 50 and 62,
  'the start-delayed task''s new message is hidden for what is left of its 60 s');
select ok(pgflow_tests.message_vt_seconds('hm', pgflow_tests.task_msg_id(:'run', 'flaky')) between 190 and 202,
  'the retried task''s new message is hidden for what is left of its 200 s backoff');

-- TEST: task 0 still runs: a claim starts none of them and holds them again
select is(pgflow_tests.claim('hm', 'aaaaaaaa-0000-0000-0000-00000000000a', 10), 0,
  'a claim starts no task while items task 0 runs');
select is(pgflow_tests.held_count('hm', 'items'), 3::bigint, 'the claim held the three new messages again');
select is(pgflow_tests.visible_task_messages('hm', 'items'), 0::bigint, 'none of them is visible any more');
select is(pgflow_tests.task_statuses('hm', 'items'), '{"queued": 3, "started": 1}'::jsonb,
  'still one items task started');

-- TEST: completing task 0 releases one, which the next claim starts
select count(*) from pgflow.complete_task(:'run', 'items', 0, '0'::jsonb);
select is(pgflow_tests.visible_task_messages('hm', 'items'), 1::bigint, 'completing task 0 released one message');
select is(pgflow_tests.held_count('hm', 'items'), 2::bigint, 'two stay held');
select is(pgflow_tests.claim('hm', 'aaaaaaaa-0000-0000-0000-00000000000a', 10), 1, 'the next claim starts one task');
select is(
  (select array_agg(task_index order by task_index) from pgflow.step_tasks
   where run_id = :'run' and step_slug = 'items' and status = 'started'),
  array[1], 'it is task 1 (the lowest message)');

select * from finish();
rollback;

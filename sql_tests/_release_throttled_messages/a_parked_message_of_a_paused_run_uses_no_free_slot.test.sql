begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: max_in_flight 1 shared by runs A (2 elements) and B (1 element): A's task 0
-- started, A's task 1 and B's task 0 held (A's first: lower message id). A is paused: its
-- queued task 1 is parked (message archived, task still queued, its held row still there).
select pgflow.create_flow('pk');
select pgflow.add_step('pk', 'items', step_type => 'map', max_in_flight => 1);
select run_id as a from pgflow.start_flow('pk', '[0, 1]'::jsonb) \gset
select run_id as b from pgflow.start_flow('pk', '[0]'::jsonb) \gset
select pgflow_tests.claim('pk', 'aaaaaaaa-0000-0000-0000-00000000000a', 10);
select pgflow.pause_run(:'a', 'ops', 'hold');
select ok(not pgflow_tests.message_exists('pk', pgflow_tests.task_msg_id(:'a', 'items', 1), 'q'),
  'precondition: A''s task 1 is parked (its message left the queue)');

-- TEST: A's started task completes (a paused run's task may): the free slot must go to a
-- message that can be claimed, B's; the parked message of paused A cannot be made visible
select pgflow.complete_task(:'a', 'items', 0, '0'::jsonb);
select ok(pgflow_tests.message_vt('pk', pgflow_tests.task_msg_id(:'b', 'items', 0)) <= clock_timestamp(),
  'B''s held message is released');
select is(pgflow_tests.visible_task_messages('pk', 'items'), 1::bigint, 'one claimable message is visible');

-- TEST: a release counts only the messages it made visible: run C (another flow, limit 1)
-- has task 0 started and task 1 held, then is paused (task 1 parked); task 0 stops (by
-- hand): the release can make nothing visible and must say 0
select pgflow.create_flow('pk2');
select pgflow.add_step('pk2', 'items', step_type => 'map', max_in_flight => 1);
select run_id as c from pgflow.start_flow('pk2', '[0, 1]'::jsonb) \gset
select pgflow_tests.claim('pk2', 'aaaaaaaa-0000-0000-0000-00000000000a', 10);
select pgflow.pause_run(:'c', 'ops', 'hold');
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '0' where run_id = :'c' and task_index = 0;
select is(pgflow._release_throttled_messages('pk2', null), 0,
  'nothing could be made visible, so the release returns 0 (tick''s released_tasks)');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: one message delayed 30 s, one not delayed
select pgflow.create_flow('plain');
select msg_id as delayed from pgflow._send_task_messages(
  'plain', array['00000000-0000-0000-0000-0000000000a1']::uuid[], array['later'], array[0], 30) as m (msg_id) \gset
select msg_id as now_visible from pgflow._send_task_messages(
  'plain', array['00000000-0000-0000-0000-0000000000a1']::uuid[], array['now'], array[0], 0) as m (msg_id) \gset

-- TEST: the delayed message is hidden for about delay_seconds
select cmp_ok(pgflow_tests.message_vt_seconds('plain', :delayed), '>', 20::numeric, 'delayed by about 30 s (lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('plain', :delayed), '<=', 30::numeric, 'delayed by about 30 s (upper bound)');

-- TEST: delay 0 is visible at once
select cmp_ok(pgflow_tests.message_vt_seconds('plain', :now_visible), '<=', 0::numeric, 'delay 0 is visible now');
select is(
  (select array_agg(message ->> 'step_slug') from pgmq.read('plain', 30, 5)),
  array['now'],
  'a reader gets only the undelayed message'
);

select * from finish();
rollback;

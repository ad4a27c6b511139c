begin;
select plan(4);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "parked": one root step delayed by an hour; the run is paused at once, so its
-- message is parked in the archive with its visibility time
select pgflow.create_flow('parked', max_attempts => 1);
select pgflow.add_step('parked', 'only', start_delay => 3600);
select pgflow_tests.ensure_worker('parked');
select run_id from pgflow.start_flow('parked', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'run_id', 'alice', null);
select is(pgflow_tests.queue_count('parked'), 0::bigint, 'the message is parked');

-- TEST: 40 minutes pass while paused; resumed, the task waits what is left (20 minutes)
select pgflow.advance_clock(2400);
select count(*) from pgflow.resume_run(:'run_id', 'carol', null);
select ok(
  pgflow_tests.message_vt_seconds('parked', pgflow_tests.task_msg_id(:'run_id', 'only')) between 1190 and 1201,
  'the new message is hidden for what is left of the hour on the moved clock');

-- TEST: not claimable 19 minutes later, claimable at 21
select pgflow.advance_clock(1140);
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('parked', '11111111-1111-1111-1111-111111111111', 10, 5)),
  0, 'not claimable before the hour is over');
select pgflow.advance_clock(120);
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('parked', '11111111-1111-1111-1111-111111111111', 10, 5)),
  1, 'claimable once the hour is over');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two root steps with different timeouts (10 s and 100 s)
select pgflow.create_flow('leases', max_attempts => 1);
select pgflow.add_step('leases', 'fast', timeout => 10);
select pgflow.add_step('leases', 'slow', timeout => 100);
select run_id from pgflow.start_flow('leases', '{}') \gset
select pgflow_tests.ensure_worker('leases') as worker \gset

-- TEST: steps with different timeouts: read with visibility_timeout, then each claimed
-- message is hidden for its own step timeout + 2 s
select is((select count(*)::int from pgflow.read_and_start_tasks('leases', :'worker', 10, 5) where run_id is not null),
  2, 'both tasks are claimed');
select ok(pgflow_tests.message_vt_seconds('leases', pgflow_tests.task_msg_id(:'run_id', 'fast')) between 10 and 12,
  'the fast step''s message is hidden for 10 + 2 s');
select ok(pgflow_tests.message_vt_seconds('leases', pgflow_tests.task_msg_id(:'run_id', 'slow')) between 100 and 102,
  'the slow step''s message is hidden for 100 + 2 s');

-- TEST: one shared timeout: messages are read with timeout + 2 s directly
select pgflow.create_flow('same', max_attempts => 1, timeout => 30);
select pgflow.add_step('same', 'only');
select run_id as same_run from pgflow.start_flow('same', '{}') \gset
select count(*) from pgflow.read_and_start_tasks('same', :'worker', 10, 5);
select ok(pgflow_tests.message_vt_seconds('same', pgflow_tests.task_msg_id(:'same_run', 'only')) between 30 and 32,
  'the message is hidden for the flow timeout + 2 s');

select * from finish();
rollback;

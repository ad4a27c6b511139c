begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a root map with max_in_flight 1 over 3: task 0 started, tasks 1 and 2 held
select pgflow.create_flow('dr');
select pgflow.add_step('dr', 'items', step_type => 'map', max_in_flight => 1);
select run_id from pgflow.start_flow('dr', '[0, 1, 2]'::jsonb) \gset
select pgflow_tests.claim('dr', 'aaaaaaaa-0000-0000-0000-00000000000a', 3);
select pgflow_tests.task_msg_id(:'run_id', 'items', 1) as msg1 \gset
select pgflow_tests.task_msg_id(:'run_id', 'items', 2) as msg2 \gset
select pgflow_tests.message_vt('dr', :msg1::bigint) as vt1 \gset

-- TEST: task 1 (held) is cancelled by hand and task 0 stops: the release drops task 1's row
-- without touching its message, and releases task 2 (the slot is not used up by the dead row)
update pgflow.step_tasks set status = 'cancelled', cancelled_at = now() where run_id = :'run_id' and task_index = 1;
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '0' where run_id = :'run_id' and task_index = 0;
select is(pgflow._release_throttled_messages('dr', null), 1, 'one message released (task 2)');
select is(pgflow_tests.held_count('dr'), 0::bigint, 'both rows are gone');
select is(pgflow_tests.message_vt('dr', :msg1::bigint), :'vt1'::timestamptz, 'the cancelled task''s message is untouched');
select ok(pgflow_tests.message_vt('dr', :msg2::bigint) <= clock_timestamp(), 'task 2''s message is visible');

-- TEST: a held row whose task got another message (the row names the old one) is dropped
-- without releasing anything
insert into pgflow.throttled_messages (flow_slug, step_slug, message_id) values ('dr', 'items', 999999);
select is(pgflow._release_throttled_messages('dr', null), 0, 'a row for a message of no queued task releases nothing');
select is(pgflow_tests.held_count('dr'), 0::bigint, 'and is dropped');

select * from finish();
rollback;

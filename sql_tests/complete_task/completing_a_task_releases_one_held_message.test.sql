begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: a root map with max_in_flight 2 over 5 elements: tasks 0 and 1 started, 2-4 held
select pgflow.create_flow('cr');
select pgflow.add_step('cr', 'items', step_type => 'map', max_in_flight => 2);
select run_id from pgflow.start_flow('cr', '[0, 1, 2, 3, 4]'::jsonb) \gset
select pgflow_tests.claim('cr', 'aaaaaaaa-0000-0000-0000-00000000000a', 5);
select is(pgflow_tests.held_count('cr', 'items'), 3::bigint, 'precondition: three messages held');
select pgflow_tests.task_msg_id(:'run_id', 'items', 2) as msg2 \gset

-- TEST: completing task 0 makes exactly one held message visible: the oldest (task 2)
select pgflow.complete_task(:'run_id', 'items', 0, '0'::jsonb);
select is(pgflow_tests.visible_task_messages('cr', 'items'), 1::bigint, 'exactly one queued task''s message is visible');
select ok(pgflow_tests.message_vt('cr', :msg2::bigint) <= clock_timestamp(), 'it is task 2''s (vt <= now)');
select is((select array_agg(task_index order by task_index) from pgflow.step_tasks
           where message_id in (select message_id from pgflow.throttled_messages)),
  array[3, 4], 'its held row is removed; tasks 3 and 4 stay held');
select ok((select bool_and(vt_seconds > 290) from pgflow_tests.held_messages('cr', 'items')), 'they stay hidden');

-- TEST: the released task is still unclaimed (no attempt spent) until a worker claims it
select results_eq(format($$select status, attempts_count from pgflow.step_tasks where run_id = %L and task_index = 2$$, :'run_id'),
  $$values ('queued'::text, 0)$$, 'task 2 is queued, attempts_count 0');

-- TEST: a duplicate completion releases nothing more
select pgflow.complete_task(:'run_id', 'items', 0, '0'::jsonb);
select is(pgflow_tests.visible_task_messages('cr', 'items'), 1::bigint, 'a repeated report releases nothing');

-- TEST: completing task 1 leaves no task started: both slots are free, so tasks 3 and 4 are
-- released too (a released message not yet claimed holds no slot; a claim holds again what
-- does not fit)
select pgflow.complete_task(:'run_id', 'items', 1, '1'::jsonb);
select is(pgflow_tests.held_count('cr', 'items'), 0::bigint, 'no message left held');
select is(pgflow_tests.visible_task_messages('cr', 'items'), 3::bigint, 'tasks 2, 3 and 4 are visible');
select is(pgflow_tests.claim('cr', 'bbbbbbbb-0000-0000-0000-00000000000b', 10), 2, 'the next claim starts two of them');
select is(pgflow_tests.held_count('cr', 'items'), 1::bigint, 'and holds the third again');

select * from finish();
rollback;

begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: max_attempts 3, base_delay 5; a root map with max_in_flight 1 over 3 elements:
-- task 0 started, tasks 1 and 2 held
select pgflow.create_flow('fr', max_attempts => 3, base_delay => 5);
select pgflow.add_step('fr', 'items', step_type => 'map', max_in_flight => 1);
select run_id from pgflow.start_flow('fr', '[0, 1, 2]'::jsonb) \gset
select pgflow_tests.claim('fr', 'aaaaaaaa-0000-0000-0000-00000000000a', 3);
select is(pgflow_tests.held_count('fr', 'items'), 2::bigint, 'precondition: two messages held');
select pgflow_tests.task_msg_id(:'run_id', 'items', 0) as msg0 \gset
select pgflow_tests.task_msg_id(:'run_id', 'items', 1) as msg1 \gset

-- TEST: task 0 fails with a retry left: it is queued again (message hidden for its backoff)
-- and its slot goes to task 1, whose message becomes visible
select results_eq(format($$select status, attempts_count from pgflow.fail_task(%L, 'items', 0, 'boom')$$, :'run_id'),
  $$values ('queued'::text, 1)$$, 'task 0 is retried');
select ok(pgflow_tests.message_vt('fr', :msg1::bigint) <= clock_timestamp(), 'task 1''s message is visible');
select ok(pgflow_tests.message_vt_seconds('fr', :msg0::bigint) between 8 and 11, 'task 0''s message waits for its 10 s backoff');
select is((select array_agg(task_index order by task_index) from pgflow.step_tasks
           where message_id in (select message_id from pgflow.throttled_messages)),
  array[2], 'only task 2 is held now');

-- TEST: the next claim starts task 1 (one slot); task 0, when due, would be held again
select results_eq(
  $$select task_index from pgflow.read_and_start_tasks('fr', 'aaaaaaaa-0000-0000-0000-00000000000a', 10, 30)$$,
  $$values (1)$$, 'the next claim starts task 1');
select pgflow_tests.make_visible('fr');
select is(pgflow_tests.claim('fr', 'aaaaaaaa-0000-0000-0000-00000000000a', 10), 0,
  'with task 1 started, neither task 0''s retry nor task 2 starts');

select * from finish();
rollback;

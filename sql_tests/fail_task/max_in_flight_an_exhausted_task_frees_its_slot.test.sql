begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: max_attempts 1, max_in_flight 2; run A maps over 1 element, run B over 3: A's
-- task and B's task 0 start, B's tasks 1 and 2 are held
select pgflow.create_flow('fe', max_attempts => 1);
select pgflow.add_step('fe', 'items', step_type => 'map', max_in_flight => 2);
select run_id as a from pgflow.start_flow('fe', '[0]'::jsonb) \gset
select run_id as b from pgflow.start_flow('fe', '[0, 1, 2]'::jsonb) \gset
select pgflow_tests.claim('fe', 'aaaaaaaa-0000-0000-0000-00000000000a', 10);
select is((select array_agg(run_id::text || '/' || task_index order by message_id) from pgflow.step_tasks where status = 'started'),
  array[:'a' || '/0', :'b' || '/0'], 'precondition: A/0 and B/0 started');
select pgflow_tests.task_msg_id(:'b', 'items', 1) as msg_b1 \gset

-- TEST: A's task fails for good (run A fails): its slot goes to B's task 1
select results_eq(format($$select status from pgflow.fail_task(%L, 'items', 0, 'boom')$$, :'a'),
  $$values ('failed'::text)$$, 'A''s task fails for good');
select is((select status from pgflow.runs where run_id = :'a'), 'failed', 'run A failed');
select ok(pgflow_tests.message_vt('fe', :msg_b1::bigint) <= clock_timestamp(), 'B''s task 1 message is visible');
select is((select array_agg(task_index order by task_index) from pgflow.step_tasks
           where message_id in (select message_id from pgflow.throttled_messages)),
  array[2], 'B''s task 2 stays held');
select is(pgflow_tests.claim('fe', 'bbbbbbbb-0000-0000-0000-00000000000b', 10), 1, 'the next claim starts B''s task 1');

select * from finish();
rollback;

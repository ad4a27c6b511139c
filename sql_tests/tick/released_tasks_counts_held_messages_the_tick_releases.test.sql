begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: a root map with max_in_flight 2 over 6: tasks 0, 1 started, 2-5 held
select pgflow.create_flow('tr');
select pgflow.add_step('tr', 'items', step_type => 'map', max_in_flight => 2);
select run_id from pgflow.start_flow('tr', '[0, 1, 2, 3, 4, 5]'::jsonb) \gset
select pgflow_tests.claim('tr', 'aaaaaaaa-0000-0000-0000-00000000000a', 6);
select is(pgflow_tests.held_count('tr', 'items'), 4::bigint, 'precondition: four held');

-- TEST: no slot free: the tick releases nothing
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick: released_tasks 0');

-- TEST: the limit raised to 3: the tick releases one message (the oldest held)
update pgflow.steps set opt_max_in_flight = 3 where flow_slug = 'tr';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 1)$$, 'tick: released_tasks 1');
select ok(pgflow_tests.message_vt('tr', pgflow_tests.task_msg_id(:'run_id', 'items', 2)) <= clock_timestamp(),
  'task 2''s message is visible');
select is(pgflow_tests.held_count('tr', 'items'), 3::bigint, 'three still held');

-- TEST: a missed release (a started task finished by hand, without the release): the tick
-- catches up with one message for the one free slot
select pgflow_tests.claim('tr', 'aaaaaaaa-0000-0000-0000-00000000000a', 6);
select is(pgflow_tests.task_statuses('tr', 'items'), '{"queued": 3, "started": 3}'::jsonb, 'task 2 was claimed: three started');
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '0'
where run_id = :'run_id' and task_index = 0;
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 1)$$, 'tick: released_tasks 1 after the missed release');

-- TEST: once the released message is claimed (three started again), a tick releases nothing
select is(pgflow_tests.claim('tr', 'aaaaaaaa-0000-0000-0000-00000000000a', 6), 1, 'the released task is claimed');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'then the tick releases nothing');

select * from finish();
rollback;

begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: a root map with max_in_flight 2 over 6: tasks 0, 1 started, 2-5 held
select pgflow.create_flow('rl');
select pgflow.add_step('rl', 'items', step_type => 'map', max_in_flight => 2);
select run_id from pgflow.start_flow('rl', '[0, 1, 2, 3, 4, 5]'::jsonb) \gset
select pgflow_tests.claim('rl', 'aaaaaaaa-0000-0000-0000-00000000000a', 6);
select is(pgflow_tests.held_count('rl', 'items'), 4::bigint, 'precondition: four held');

-- TEST: no free slot: nothing is released
select is(pgflow._release_throttled_messages('rl', null), 0, 'both slots taken: releases nothing');
select is(pgflow_tests.held_count('rl', 'items'), 4::bigint, 'still four held');

-- TEST: one task stops being started (by hand: the release was missed): one message, the
-- oldest, is released; a repeated call before any claim releases one more (released
-- messages not claimed yet use no slot), and a claim then holds the extra one again: the
-- limit holds
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '0'
where run_id = :'run_id' and task_index = 0;
select is(pgflow._release_throttled_messages('rl', array['items']), 1, 'one free slot: one released');
select ok(pgflow_tests.message_vt('rl', pgflow_tests.task_msg_id(:'run_id', 'items', 2)) <= clock_timestamp(),
  'task 2''s message is visible');
select is((select array_agg(task_index order by task_index) from pgflow.step_tasks
           where message_id in (select message_id from pgflow.throttled_messages)),
  array[3, 4, 5], 'its row is gone, 3-5 still held');
select is(pgflow._release_throttled_messages('rl', null), 1,
  'a repeated call before a claim releases one more (COMMENT of _release_throttled_messages)');
select is((select count(*)::int from pgflow.read_and_start_tasks('rl', 'aaaaaaaa-0000-0000-0000-00000000000a', 10, 30)
           where run_id is not null), 1, 'a claim starts one (the free slot) and holds the other again');

-- TEST: other steps or flows named: nothing of this step is released
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '1'
where run_id = :'run_id' and task_index = 1;
select is(pgflow._release_throttled_messages('rl', array['other']), 0, 'another step named: nothing');
select is(pgflow._release_throttled_messages('no_such_flow', null), 0, 'another flow named: nothing');

-- TEST: the limit removed: every held message is released (NULL flow: every flow)
update pgflow.steps set opt_max_in_flight = null where flow_slug = 'rl';
select pgflow_tests.held_count('rl') as still_held \gset
select is(pgflow._release_throttled_messages(null, null), :still_held::int, 'no limit any more: every held one is released');
select is(pgflow_tests.held_count('rl'), 0::bigint, 'no held row is left');

select * from finish();
rollback;

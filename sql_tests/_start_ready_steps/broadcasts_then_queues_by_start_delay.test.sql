begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: first -> fast, first -> slow (start_delay 30); "first" finished by hand
select pgflow.create_flow('fan');
select pgflow.add_step('fan', 'first');
select pgflow.add_step('fan', 'fast', array['first']);
select pgflow.add_step('fan', 'slow', array['first'], start_delay => 30);
select run_id from pgflow.start_flow('fan', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'first', '{}');
delete from realtime.messages;
select pgflow._start_ready_steps(array[:'run_id']::uuid[]);

-- TEST: one step:started per step, in step_index order
select is(
  pgflow_tests.run_events(:'run_id'),
  array['step:fast:started', 'step:slow:started'],
  'step:started is broadcast for each started step in step_index order'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:slow:started') @> jsonb_build_object(
    'event_type', 'step:started', 'step_slug', 'slow', 'status', 'started',
    'remaining_tasks', 1, 'remaining_deps', 0),
  'the payload carries status, remaining_tasks and remaining_deps'
);

-- TEST: each step's message waits for its own start delay
select cmp_ok(
  pgflow_tests.message_vt_seconds('fan', pgflow_tests.task_msg_id(:'run_id', 'fast')),
  '<=', 0::numeric,
  'fast (no start_delay) is visible at once'
);
select cmp_ok(
  pgflow_tests.message_vt_seconds('fan', pgflow_tests.task_msg_id(:'run_id', 'slow')),
  '>', 20::numeric,
  'slow is hidden for about its 30 s start_delay'
);

select * from finish();
rollback;

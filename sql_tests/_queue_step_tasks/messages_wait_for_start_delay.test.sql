begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a root map started by hand with two tasks, queued with a 45 s start delay
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
update pgflow.step_states
set status = 'started', started_at = now(), remaining_deps = 0, initial_tasks = 2, remaining_tasks = 2
where run_id = :'run_id' and step_slug = 'mapper';
select pgflow._queue_step_tasks('map_chain', 45, array[:'run_id']::uuid[], array['mapper'], array[2]);

-- TEST: both messages are hidden for about start_delay seconds
select is(
  (select count(*)::int from pgflow.step_tasks
   where run_id = :'run_id' and step_slug = 'mapper'
     and pgflow_tests.message_vt_seconds('map_chain', message_id) > 35
     and pgflow_tests.message_vt_seconds('map_chain', message_id) <= 45),
  2,
  'each message becomes visible after about 45 s'
);
select is(
  (select count(*)::int from pgmq.read('map_chain', 30, 10) where message ->> 'step_slug' = 'mapper'),
  0,
  'a reader gets none of them now'
);

select * from finish();
rollback;

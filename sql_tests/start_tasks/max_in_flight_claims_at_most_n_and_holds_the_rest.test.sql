begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: a root map step with max_in_flight 2 over 5 elements; two registered workers
select pgflow.create_flow('mf');
select pgflow.add_step('mf', 'items', step_type => 'map', max_in_flight => 2);
select run_id from pgflow.start_flow('mf', '[10, 11, 12, 13, 14]'::jsonb) \gset
select pgflow_tests.register('mf', 'aaaaaaaa-0000-0000-0000-00000000000a') as worker_a \gset
select pgflow_tests.register('mf', 'bbbbbbbb-0000-0000-0000-00000000000b') as worker_b \gset

-- TEST: worker A reads all five messages and claims: only two tasks start (lowest message ids)
create temp table claim_a as
  select * from pgflow.start_tasks('mf', array(select msg_id from pgmq.read('mf', 30, 5) order by msg_id), :'worker_a');
select results_eq($$select task_index, input from claim_a order by task_index$$,
  $$values (0, '10'::jsonb), (1, '11'::jsonb)$$, 'worker A gets tasks 0 and 1 only');
select is(pgflow_tests.task_statuses('mf', 'items'), '{"queued": 3, "started": 2}'::jsonb, 'two started, three queued');

-- TEST: the three others stay queued with no attempt spent, held in throttled_messages,
-- their messages hidden for about 300 s
select results_eq(
  $$select task_status, attempts_count from pgflow_tests.held_messages('mf', 'items')$$,
  $$values ('queued'::text, 0), ('queued', 0), ('queued', 0)$$, 'three held rows: tasks queued, attempts_count 0');
select is((select array_agg(message_id order by message_id) from pgflow.throttled_messages),
  (select array_agg(message_id order by task_index) from pgflow.step_tasks where status = 'queued'),
  'the held rows are the messages of the queued tasks');
select ok((select bool_and(vt_seconds between 290 and 301) from pgflow_tests.held_messages('mf', 'items')),
  'their vt is about 300 s ahead');
select is((select array_agg(attempts_count order by task_index) from pgflow.step_tasks where status = 'started'),
  array[1, 1], 'the started tasks spent one attempt each');
select is((select count(*) from pgflow.run_events where event like 'task:%'), 0::bigint, 'holding records no task event');

-- TEST: worker B finds nothing to read; handed the held ids anyway (an earlier read), it
-- claims nothing and they stay held
select is((select count(*) from pgmq.read('mf', 30, 5)), 0::bigint, 'worker B reads no message');
select is((select count(*) from pgflow.start_tasks('mf',
            array(select message_id from pgflow.throttled_messages order by message_id), :'worker_b')),
  0::bigint, 'worker B claims nothing while both slots are taken');
select is(pgflow_tests.held_count('mf', 'items'), 3::bigint, 'still three held rows (no duplicate)');
select is(pgflow_tests.task_statuses('mf', 'items'), '{"queued": 3, "started": 2}'::jsonb, 'still two started');
select is((select count(*) from pgflow.step_tasks where last_worker_id = :'worker_b'), 0::bigint,
  'no task was given to worker B');

select * from finish();
rollback;

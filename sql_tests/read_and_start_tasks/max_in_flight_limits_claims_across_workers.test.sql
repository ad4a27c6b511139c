begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: a root map with max_in_flight 2 over 5 elements; two registered workers
select pgflow.create_flow('rs');
select pgflow.add_step('rs', 'items', step_type => 'map', max_in_flight => 2);
select run_id from pgflow.start_flow('rs', '[0, 1, 2, 3, 4]'::jsonb) \gset
select pgflow_tests.register('rs', 'aaaaaaaa-0000-0000-0000-00000000000a') as worker_a \gset
select pgflow_tests.register('rs', 'bbbbbbbb-0000-0000-0000-00000000000b') as worker_b \gset

-- TEST: worker A reads one message and claims its task
select results_eq(
  format($$select task_index, attempts_count from pgflow.read_and_start_tasks('rs', %L, 1, 30)$$, :'worker_a'),
  $$values (0, 1)$$, 'worker A claims task 0');

-- TEST: worker B reads the four others: it claims one (the one slot left), the rows of the
-- other three come back without a task
select results_eq(
  format($$select task_index, attempts_count from pgflow.read_and_start_tasks('rs', %L, 10, 30) order by msg_id$$, :'worker_b'),
  $$values (1, 1), (null::int, null::int), (null, null), (null, null)$$,
  'worker B claims task 1 and gets three messages without a task');
select is(pgflow_tests.task_statuses('rs', 'items'), '{"queued": 3, "started": 2}'::jsonb, 'two started in all');
select results_eq(
  $$select task_status, attempts_count, vt_seconds between 290 and 301 from pgflow_tests.held_messages('rs', 'items')$$,
  $$values ('queued'::text, 0, true), ('queued', 0, true), ('queued', 0, true)$$,
  'three held: queued, no attempt spent, vt about 300 s ahead');
select is((select array_agg(task_index order by task_index) from pgflow.step_tasks
           where message_id in (select message_id from pgflow.throttled_messages)),
  array[2, 3, 4], 'the held ones are tasks 2, 3 and 4');

-- TEST: a third claim reads nothing (held messages are invisible)
select is((select count(*) from pgflow.read_and_start_tasks('rs', :'worker_a', 10, 30)), 0::bigint,
  'nothing can be read while both slots are taken');

-- TEST: worker A completes task 0: task 2's message is visible again, the next claim starts it
select pgflow.complete_task(:'run_id', 'items', 0, '0'::jsonb);
select results_eq(
  format($$select task_index from pgflow.read_and_start_tasks('rs', %L, 10, 30)$$, :'worker_a'),
  $$values (2)$$, 'the next claim reads and starts exactly task 2');
select is(pgflow_tests.held_count('rs', 'items'), 2::bigint, 'tasks 3 and 4 stay held');

select * from finish();
rollback;

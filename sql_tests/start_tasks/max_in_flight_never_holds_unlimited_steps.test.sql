begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: two root maps over the same 3 elements: limited (max_in_flight 1) and free (no limit)
select pgflow.create_flow('mix');
select pgflow.add_step('mix', 'free', step_type => 'map');
select pgflow.add_step('mix', 'limited', step_type => 'map', max_in_flight => 1);
select run_id from pgflow.start_flow('mix', '[1, 2, 3]'::jsonb) \gset
select pgflow_tests.register('mix', 'aaaaaaaa-0000-0000-0000-00000000000a') as worker_a \gset

-- TEST: one claim of all six messages starts every free task and one limited task
select is((select count(*) from pgflow.start_tasks('mix', array(select msg_id from pgmq.read('mix', 30, 10)), :'worker_a')),
  4::bigint, 'four tasks start');
select is(pgflow_tests.task_statuses('mix', 'free'), '{"started": 3}'::jsonb, 'all three free tasks started');
select is(pgflow_tests.task_statuses('mix', 'limited'), '{"queued": 2, "started": 1}'::jsonb, 'one limited task started');

-- TEST: only the limited step's messages are held
select is(pgflow_tests.held_count('mix', 'free'), 0::bigint, 'no free message is held');
select is(pgflow_tests.held_count('mix', 'limited'), 2::bigint, 'two limited messages are held');

-- TEST: completing a free task releases nothing of the limited step (it has no free slot)
select pgflow.complete_task(:'run_id', 'free', 0, '"ok"'::jsonb);
select is(pgflow_tests.held_count('mix', 'limited'), 2::bigint, 'the limited messages stay held');

select * from finish();
rollback;

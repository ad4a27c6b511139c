begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a root map with max_in_flight 1 over 2 elements: task 0 started, task 1 held;
-- task 0's worker dies (started long ago)
select pgflow.create_flow('rq');
select pgflow.add_step('rq', 'items', step_type => 'map', max_in_flight => 1);
select run_id from pgflow.start_flow('rq', '[0, 1]'::jsonb) \gset
select pgflow_tests.claim('rq', 'aaaaaaaa-0000-0000-0000-00000000000a', 2);
select is(pgflow_tests.held_count('rq', 'items'), 1::bigint, 'precondition: task 1 held');
select pgflow_tests.backdate_started_tasks(interval '10 minutes', 'items', 0, :'run_id');

-- TEST: requeue_stalled_tasks requeues task 0 and releases task 1's message
select is(pgflow.requeue_stalled_tasks(), 1, 'one task requeued');
select is(pgflow_tests.held_count('rq', 'items'), 0::bigint, 'the held row is removed');
select is(pgflow_tests.visible_task_messages('rq', 'items'), 2::bigint, 'both messages are visible');

-- TEST: the step is still limited: of both, the next claim starts only task 0 (lowest
-- message id) and holds task 1 again
select results_eq(
  $$select task_index, attempts_count from pgflow.read_and_start_tasks('rq', 'aaaaaaaa-0000-0000-0000-00000000000a', 10, 30)
    where task_index is not null$$,
  $$values (0, 2)$$, 'the next claim starts task 0 again (attempt 2)');
select is(pgflow_tests.held_count('rq', 'items'), 1::bigint, 'task 1 is held again');

select * from finish();
rollback;

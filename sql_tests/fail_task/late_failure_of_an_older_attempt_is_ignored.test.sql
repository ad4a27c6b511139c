begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: max_attempts 2. Worker A claims first (attempt 1), stalls; requeued; worker B
-- claims it (attempt 2, the last one)
select pgflow.create_flow('fenced', max_attempts => 2);
select pgflow.add_step('fenced', 'first');
select run_id from pgflow.start_flow('fenced', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
select is(pgflow_tests.requeue_and_reclaim(:'run_id', 'first'), 2, 'worker B holds attempt 2');

-- TEST: A's late failure (attempt 1) would exhaust the task and fail the run: ignored
select results_eq(
  format($$select status, attempts_count, error_message from pgflow.fail_task(%L, 'first', 0, 'timed out in A', 1)$$,
         :'run_id'),
  $$values ('started'::text, 2, null::text)$$,
  'the late failure returns the row of attempt 2, untouched'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run did not fail');
select ok(pgflow_tests.message_exists('fenced', pgflow_tests.task_msg_id(:'run_id', 'first'), 'q'),
  'the message is still there for attempt 2');

-- TEST: B completes; the run completes with B's output
select count(*) from pgflow.complete_task(:'run_id', 'first', 0, '"from B"', 2);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"first": "from B"}'::jsonb)$$,
  'the run completes with the live attempt''s output'
);

select * from finish();
rollback;

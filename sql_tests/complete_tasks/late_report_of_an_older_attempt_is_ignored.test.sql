begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: worker A claims first (attempt 1), stalls; the task is requeued and worker B
-- claims it (attempt 2)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
select is(pgflow_tests.requeue_and_reclaim(:'run_id', 'first'), 2, 'worker B holds attempt 2');

-- TEST: A's late report (attempt 1) is ignored and writes nothing
select results_eq(
  format($$select status, outcome, reason from pgflow.complete_tasks(array[%L]::uuid[],
      array['first'], array[0], array['"from A"']::jsonb[], array[1])$$, :'run_id'),
  $$values ('started'::text, 'ignored'::text, 'stale_attempt'::text)$$,
  'the report of attempt 1 is ignored with stale_attempt'
);
select results_eq(
  format($$select status, output, attempts_count from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::jsonb, 2)$$,
  'the task is still started by attempt 2, with no output'
);
select ok(pgflow_tests.message_exists('sequential', pgflow_tests.task_msg_id(:'run_id', 'first'), 'q'),
  'its message stays in the queue for attempt 2');

-- TEST: B's report (attempt 2) completes it with B's output
select results_eq(
  format($$select outcome from pgflow.complete_tasks(array[%L]::uuid[],
      array['first'], array[0], array['"from B"']::jsonb[], array[2])$$, :'run_id'),
  $$values ('completed'::text)$$,
  'the report of attempt 2 completes the task'
);
select results_eq(
  format($$select t.output, s.status from pgflow.step_tasks as t
           join pgflow.step_states as s on s.run_id = t.run_id and s.step_slug = t.step_slug
           where t.run_id = %L and t.step_slug = 'first'$$, :'run_id'),
  $$values ('"from B"'::jsonb, 'completed'::text)$$,
  'the step completes with the live attempt''s output'
);

select * from finish();
rollback;

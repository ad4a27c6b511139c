begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: worker A claims first (attempt 1), stalls; requeued; worker B claims (attempt 2)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
select is(pgflow_tests.requeue_and_reclaim(:'run_id', 'first'), 2, 'worker B holds attempt 2');

-- TEST: complete_task with attempt 1 writes nothing; the row it returns shows attempt 2
select results_eq(
  format($$select status, attempts_count, output from pgflow.complete_task(%L, 'first', 0, '"from A"', 1)$$,
         :'run_id'),
  $$values ('started'::text, 2, null::jsonb)$$,
  'the late report returns the row of attempt 2, untouched'
);
select is((select remaining_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'), 1,
  'the step still waits for its task');

-- TEST: with attempt 2 it completes
select results_eq(
  format($$select status, output from pgflow.complete_task(%L, 'first', 0, '"from B"', 2)$$, :'run_id'),
  $$values ('completed'::text, '"from B"'::jsonb)$$,
  'the live attempt completes the task'
);

-- TEST: without attempt (upstream callers) a report of a started task is accepted as before
select run_id as run2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run2', 'first');
select pgflow_tests.requeue_and_reclaim(:'run2', 'first');
select results_eq(
  format($$select status from pgflow.complete_task(%L, 'first', 0, '"no fence"')$$, :'run2'),
  $$values ('completed'::text)$$,
  'no attempt given: no fence (upstream behaviour)'
);

select * from finish();
rollback;

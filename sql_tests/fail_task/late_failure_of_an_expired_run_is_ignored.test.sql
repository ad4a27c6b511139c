begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a flow with retries left (max_attempts 3): root_a's task started, root_b's queued;
-- the run expires
select pgflow.create_flow('fx', max_attempts => 3);
select pgflow.add_step('fx', 'root_a');
select pgflow.add_step('fx', 'root_b');
select run_id from pgflow.start_flow('fx', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_task(:'run_id', 'root_a');
select pgflow_tests.pass_deadline(:'run_id');
select ran from pgflow.tick();
select is((select status from pgflow.runs where run_id = :'run_id'), 'expired', 'precondition: the run expired');
select pgflow_tests.run_snapshot(:'run_id') as before \gset

-- TEST: fail_tasks reports the started-then-cancelled task as ignored, reason run_expired (no retry)
select results_eq(
  format($$select status, outcome, reason from pgflow.fail_tasks(array[%L]::uuid[], array['root_a'], array[0],
           array['late boom'], array[1])$$, :'run_id'),
  $$values ('cancelled'::text, 'ignored'::text, 'run_expired'::text)$$,
  'the late failure of the started task: ignored, run_expired');
select results_eq(
  format($$select status, outcome, reason from pgflow.fail_tasks(array[%L]::uuid[], array['root_b'], array[0],
           array['late boom'])$$, :'run_id'),
  $$values ('cancelled'::text, 'ignored'::text, 'run_expired'::text)$$,
  'a failure for the task that was queued: ignored, run_expired');

-- TEST: fail_task returns the task unchanged: cancelled, no error, no retry
select results_eq(
  format($$select status, error_message, attempts_count from pgflow.fail_task(%L, 'root_a', 0, 'late boom')$$, :'run_id'),
  $$values ('cancelled'::text, null::text, 1)$$, 'fail_task returns the cancelled task unchanged');

-- TEST: nothing changed, no message sent for a retry
select is(pgflow_tests.run_snapshot(:'run_id'), :'before'::jsonb, 'the run and everything of it is unchanged');
select is(pgflow_tests.queue_count('fx'), 0::bigint, 'no retry message is in the queue');

select * from finish();
rollback;

begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a's task started (attempt 1), root_b's queued; the run expires
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_task(:'run_id', 'root_a');
select pgflow_tests.pass_deadline(:'run_id');
select ran from pgflow.tick();
select is((select status from pgflow.runs where run_id = :'run_id'), 'expired', 'precondition: the run expired');
select pgflow_tests.run_snapshot(:'run_id') as before \gset

-- TEST: complete_tasks reports the started-then-cancelled task as ignored, reason run_expired
select results_eq(
  format($$select status, outcome, reason from pgflow.complete_tasks(array[%L]::uuid[], array['root_a'], array[0],
           array['"late"'::jsonb], array[1])$$, :'run_id'),
  $$values ('cancelled'::text, 'ignored'::text, 'run_expired'::text)$$,
  'the late report of the started task: ignored, run_expired');
-- (the queued task, which never started, is judged the same way)
select results_eq(
  format($$select status, outcome, reason from pgflow.complete_tasks(array[%L]::uuid[], array['root_b'], array[0],
           array['"late"'::jsonb])$$, :'run_id'),
  $$values ('cancelled'::text, 'ignored'::text, 'run_expired'::text)$$,
  'a report for the task that was queued: ignored, run_expired');

-- TEST: complete_task returns the task as it is: cancelled, no output
select results_eq(
  format($$select status, output, completed_at from pgflow.complete_task(%L, 'root_a', 0, '"late"'::jsonb)$$, :'run_id'),
  $$values ('cancelled'::text, null::jsonb, null::timestamptz)$$, 'complete_task returns the cancelled task unchanged');

-- TEST: nothing changed: run, steps, tasks, events, messages
select is(pgflow_tests.run_snapshot(:'run_id'), :'before'::jsonb, 'the run and everything of it is unchanged');
select is((select status from pgflow.runs where run_id = :'run_id'), 'expired', 'the run stays expired');
select is((select count(*) from pgflow.step_states where run_id = :'run_id' and step_slug = 'last' and status = 'cancelled'),
  1::bigint, 'the dependent step did not start');
select is(pgflow_tests.queue_count('two_roots'), 0::bigint, 'no message was sent');

select * from finish();
rollback;

begin;
select plan(7);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "flaky": one step, 2 attempts, base_delay 60 (the first retry waits 120 s)
select pgflow.create_flow('flaky', max_attempts => 2, base_delay => 60);
select pgflow.add_step('flaky', 'only');
select pgflow_tests.ensure_worker('flaky');
select run_id from pgflow.start_flow('flaky', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('flaky', '11111111-1111-1111-1111-111111111111', 10, 5);

-- TEST: the failure is retried, and its message is hidden for the backoff
select is((select status from pgflow.fail_task(:'run_id', 'only', 0, 'boom', 1)), 'queued', 'retried: queued again');
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('flaky', '11111111-1111-1111-1111-111111111111', 10, 5)),
  0, 'not readable at once');
select pgflow.advance_clock(119);
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('flaky', '11111111-1111-1111-1111-111111111111', 10, 5)),
  0, 'not readable 119 s later');

-- TEST: readable once 120 s have passed; the second attempt starts on the moved clock
select pgflow.advance_clock(1.5);
select results_eq(
  $$select step_slug, attempts_count from pgflow.read_and_start_tasks('flaky', '11111111-1111-1111-1111-111111111111', 10, 5)$$,
  $$values ('only'::text, 2)$$,
  'readable and claimed 120.5 s later: attempt 2');
select is((select started_at from pgflow.step_tasks where run_id = :'run_id'), now() + interval '120.5 seconds',
  'the new attempt''s started_at is on the moved clock');

-- TEST: its completion is stamped on the moved clock too
select pgflow.advance_clock(10);
select is((select status from pgflow.complete_task(:'run_id', 'only', 0, '{"ok": true}', 2)), 'completed', 'completed');
select is((select completed_at from pgflow.runs where run_id = :'run_id'), now() + interval '130.5 seconds',
  'the run completed at now() + 130.5 s');

select * from finish();
rollback;

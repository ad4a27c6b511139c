begin;
select plan(6);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "slow": one step with a 10 s timeout (stalled after 10 + 30 s), started
select pgflow.create_flow('slow', max_attempts => 3, timeout => 10);
select pgflow.add_step('slow', 'only');
select pgflow_tests.ensure_worker('slow');
select run_id from pgflow.start_flow('slow', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('slow', '11111111-1111-1111-1111-111111111111', 10, 5);

-- TEST: not stalled at once, nor 40 s later (started_at must be older than 40 s)
select is(pgflow.requeue_stalled_tasks(), 0, 'nothing to requeue at once');
select pgflow.advance_clock(40);
select is(pgflow.requeue_stalled_tasks(), 0, 'nothing to requeue 40 s later');
select is((select status from pgflow.step_tasks where run_id = :'run_id'), 'started', 'the task is still started');

-- TEST: stalled past 40 s: requeued, stamped on the moved clock, visible again
select pgflow.advance_clock(1);
select is(pgflow.requeue_stalled_tasks(), 1, 'requeued 41 s later');
select results_eq(
  format($$select status, requeued_count, last_requeued_at from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('queued'::text, 1, now() + interval '41 seconds')$$,
  'queued again, requeued_count 1, last_requeued_at now() + 41 s');
select is(pgflow_tests.visible_count('slow'), 1::bigint, 'its message is visible again');

select * from finish();
rollback;

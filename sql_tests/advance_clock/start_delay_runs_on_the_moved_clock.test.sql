begin;
select plan(6);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "late": one root step delayed by 30 s
select pgflow.create_flow('late', max_attempts => 1);
select pgflow.add_step('late', 'only', start_delay => 30);
select pgflow_tests.ensure_worker('late');
select run_id from pgflow.start_flow('late', '{}'::jsonb) \gset

-- TEST: not readable before the delay has passed on the moved clock
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('late', '11111111-1111-1111-1111-111111111111', 10, 5)),
  0, 'not readable at once');
select pgflow.advance_clock(28);
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('late', '11111111-1111-1111-1111-111111111111', 10, 5)),
  0, 'not readable 28 s later');

-- TEST: readable once 30 s have passed; the task is started on the moved clock
select pgflow.advance_clock(3);
select results_eq(
  $$select step_slug, task_index from pgflow.read_and_start_tasks('late', '11111111-1111-1111-1111-111111111111', 10, 5)$$,
  $$values ('only'::text, 0)$$,
  'readable and claimed 31 s later');
select is((select status from pgflow.step_tasks where run_id = :'run_id'), 'started', 'the task is started');
select is((select started_at from pgflow.step_tasks where run_id = :'run_id'), now() + interval '31 seconds',
  'its started_at is on the moved clock (now() + 31 s)');
select is((select queued_at from pgflow.step_tasks where run_id = :'run_id'), now(),
  'its queued_at is when it was queued (before the clock moved)');

select * from finish();
rollback;

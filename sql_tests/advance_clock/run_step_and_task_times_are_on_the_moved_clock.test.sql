begin;
select plan(8);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "sequential" (first -> second -> last); the clock moved an hour before the start
select pgflow_tests.setup_flow('sequential');
select pgflow.advance_clock(3600);
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: the run, its step states and its first task are stamped at now() + 1 h
select is((select started_at from pgflow.runs where run_id = :'run_id'), now() + interval '3600 seconds',
  'runs.started_at');
select is(
  (select array_agg(distinct created_at) from pgflow.step_states where run_id = :'run_id'),
  array[now() + interval '3600 seconds'], 'step_states.created_at, every step');
select results_eq(
  format($$select started_at from pgflow.step_states where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values (now() + interval '3600 seconds')$$, 'the root step''s started_at');
select is((select queued_at from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  now() + interval '3600 seconds', 'step_tasks.queued_at');

-- TEST: 10 s later the task starts and completes: every stamp follows the moved clock
select pgflow.advance_clock(10);
select pgflow_tests.start_and_complete_task(:'run_id', 'first');
select results_eq(
  format($$select started_at, completed_at from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values (now() + interval '3610 seconds', now() + interval '3610 seconds')$$,
  'the task started and completed at now() + 3610 s');
select is((select completed_at from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  now() + interval '3610 seconds', 'the step completed at now() + 3610 s');
select is((select queued_at from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'second'),
  now() + interval '3610 seconds', 'the next step''s task was queued at now() + 3610 s');
select is(
  (select array_agg(distinct created_at order by created_at) from pgflow.run_events where run_id = :'run_id'),
  array[now() + interval '3600 seconds', now() + interval '3610 seconds'],
  'run_events are stamped on the moved clock');

select * from finish();
rollback;

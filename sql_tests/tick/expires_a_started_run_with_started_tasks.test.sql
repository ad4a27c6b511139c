begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: a root map over 4 elements: task 0 completed, tasks 1 and 2 started (by two
-- workers), task 3 queued; then the deadline passes
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3, 4]'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'items', 0, '"a"'::jsonb);
select pgflow_tests.start_task(:'run_id', 'items', 1, pgflow_tests.register('root_map', 'aaaaaaaa-0000-0000-0000-00000000000a'));
select pgflow_tests.start_task(:'run_id', 'items', 2, pgflow_tests.register('root_map', 'bbbbbbbb-0000-0000-0000-00000000000b'));
select pgflow_tests.pass_deadline(:'run_id');

-- TEST: the tick expires the run
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: expired_runs 1');
select is((select status from pgflow.runs where run_id = :'run_id'), 'expired', 'the run is expired');
select is((select details ->> 'was' from pgflow.run_events where run_id = :'run_id' and event = 'run:expired'), 'started',
  'run:expired says it was started');

-- TEST: the completed task stays completed; started and queued tasks are cancelled
select results_eq(format($$select task_index, status from pgflow.step_tasks where run_id = %L order by task_index$$, :'run_id'),
  $$values (0, 'completed'::text), (1, 'cancelled'), (2, 'cancelled'), (3, 'cancelled')$$,
  'task 0 completed, tasks 1-3 cancelled');
select is((select status from pgflow.step_states where run_id = :'run_id'), 'cancelled', 'the map step is cancelled');

-- TEST: every message is archived (the completed one already was)
select is(pgflow_tests.run_leftovers(:'run_id'),
  '{"live_steps": 0, "live_tasks": 0, "queued_messages": 0, "archived_messages": 4, "open_waits": 0}'::jsonb,
  'the four messages are in the archive, none in the queue');

-- TEST: a worker checking for cancellation learns it
select is((select count(*) from pgflow.step_tasks where run_id = :'run_id' and status = 'cancelled' and cancelled_at = now()),
  3::bigint, 'cancelled_at is set on the three tasks');

select * from finish();
rollback;

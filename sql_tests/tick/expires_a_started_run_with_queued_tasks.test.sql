begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: two_roots (root_a, root_b -> last): two queued root tasks, last created; a second
-- run whose deadline has not passed
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select run_id as alive from pgflow.start_flow('two_roots', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.pass_deadline(:'run_id');
select deadline as passed from pgflow.runs where run_id = :'run_id' \gset
select is(pgflow_tests.queue_count('two_roots'), 4::bigint, 'four root messages are queued');

-- TEST: the tick expires the run and counts it
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: expired_runs 1');
select results_eq(format($$select status, expired_at from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('expired'::text, now())$$, 'the run is expired, expired_at now');
select is(pgflow_tests.expired_events(:'run_id'),
  array[jsonb_build_object('deadline', :'passed'::timestamptz, 'was', 'started')], 'run:expired (deadline, was started)');

-- TEST: its steps and queued tasks are cancelled, the two messages archived
select results_eq(format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'cancelled'::text), ('root_a', 'cancelled'), ('root_b', 'cancelled')$$, 'every step is cancelled');
select is(pgflow_tests.run_leftovers(:'run_id'),
  '{"live_steps": 0, "live_tasks": 0, "queued_messages": 0, "archived_messages": 2, "open_waits": 0}'::jsonb,
  'no live step or task; both messages left pgmq.q_two_roots for pgmq.a_two_roots');

-- TEST: the other run is untouched
select is(pgflow_tests.run_leftovers(:'alive'),
  '{"live_steps": 3, "live_tasks": 2, "queued_messages": 2, "archived_messages": 0, "open_waits": 0}'::jsonb,
  'the run whose deadline has not passed keeps its work');

select * from finish();
rollback;

begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a's task started, root_b's queued; the run is paused (root_b's
-- message parked in the archive), then its deadline passes
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_task(:'run_id', 'root_a');
select pgflow.pause_run(:'run_id', 'ops', 'hold on');
select is((select status from pgflow.runs where run_id = :'run_id'), 'paused', 'the run is paused');
select pgflow_tests.pass_deadline(:'run_id');

-- TEST: the tick expires the paused run
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: expired_runs 1');
select results_eq(format($$select status, expired_at, paused_at from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('expired'::text, now(), null::timestamptz)$$, 'expired, expired_at now, paused_at cleared');
select is((select details ->> 'was' from pgflow.run_events where run_id = :'run_id' and event = 'run:expired'), 'paused',
  'run:expired says it was paused');

-- TEST: the started and the parked task are cancelled; both messages are archived
select results_eq(format($$select step_slug, status from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('root_a'::text, 'cancelled'::text), ('root_b', 'cancelled')$$, 'both tasks are cancelled');
select is(pgflow_tests.run_leftovers(:'run_id'),
  '{"live_steps": 0, "live_tasks": 0, "queued_messages": 0, "archived_messages": 2, "open_waits": 0}'::jsonb,
  'no live step or task, both messages archived');

-- TEST: it cannot be resumed any more
select throws_ok(format($$select * from pgflow.resume_run(%L, 'ops', 'go on')$$, :'run_id'), '55000', null,
  'resume_run of the expired run raises 55000');

select * from finish();
rollback;

begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: concurrency_limit 1: h (started) holds key k, q waits; h's deadline passes
select pgflow.create_flow('cs', concurrency_limit => 1);
select pgflow.add_step('cs', 'work');
select run_id as h from pgflow.start_flow('cs', '{}'::jsonb, concurrency_key => 'k', deadline => now() + interval '1 hour') \gset
select run_id as q from pgflow.start_flow('cs', '{}'::jsonb, concurrency_key => 'k') \gset
select pgflow_tests.pass_deadline(:'h');

-- TEST: the tick expires h; the slot goes to q at once (the release in _expire_runs, so the
-- tick's own safety net finds nothing to start)
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: expired_runs 1');
select is((select status from pgflow.runs where run_id = :'h'), 'expired', 'h is expired');
select is((select status from pgflow.runs where run_id = :'q'), 'started', 'q took the slot');
select is((select details ->> 'queued_at' from pgflow.run_events where run_id = :'q' and event = 'run:started'),
  (select to_jsonb(queued_at) ->> 0 from pgflow.runs where run_id = :'q'), 'run:started of q names when it was queued');
select is(pgflow_tests.run_leftovers(:'q'),
  '{"live_steps": 1, "live_tasks": 1, "queued_messages": 1, "archived_messages": 0, "open_waits": 0}'::jsonb,
  'q''s root task is queued with its message');

select * from finish();
rollback;

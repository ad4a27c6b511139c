begin;
select plan(9);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: asks waits for "go" (with a handler) -> later; gets waits for "go" (no handler) ->
-- after. Both wait from now(); one minute later each has taken a signal, recorded in
-- wait_states by hand as _resolve_waits does, so _finish_waits is the only one to act.
select pgflow.create_flow('fw', max_attempts => 1);
select pgflow.add_step('fw', 'asks');
select pgflow.add_wait('fw', 'asks', 'go');
select pgflow.add_step('fw', 'gets');
select pgflow.add_wait('fw', 'gets', 'go', runs_handler => false);
select pgflow.add_step('fw', 'later', array['asks']);
select pgflow.add_step('fw', 'after', array['gets']);
select run_id from pgflow.start_flow('fw', '{}'::jsonb) \gset
select pgflow.advance_clock(60);
insert into pgflow.signals (run_id, signal_name, payload, actor, status, received_at, taken_at, taken_by_step)
values (:'run_id', 'go', '{"who": "alice"}', 'test', 'taken', now(), now() + interval '60 seconds', 'asks'),
       (:'run_id', 'go', '{"ok": true}', 'test', 'taken', now(), now() + interval '60 seconds', 'gets');
update pgflow.wait_states as ws
set resolved_at = now() + interval '60 seconds', outcome = 'signal',
    signal_id = (select sg.signal_id from pgflow.signals as sg where sg.taken_by_step = ws.step_slug)
where ws.run_id = :'run_id';
select max(id) as mark from pgflow.run_events \gset

select pgflow._finish_waits(:'run_id', array['asks', 'gets']);

-- TEST: the step with a handler starts now (engine's time), its task queued
select results_eq(
  format($$select status, started_at, remaining_tasks, completed_at, output from pgflow.step_states
           where run_id = %L and step_slug = 'asks'$$, :'run_id'),
  $$values ('started'::text, now() + interval '60 seconds', 1, null::timestamptz, null::jsonb)$$,
  'asks: started at the engine''s time, one task to do');
select results_eq(
  format($$select t.status, t.task_index, pgflow_tests.message_exists('fw', t.message_id) from pgflow.step_tasks as t
           where t.run_id = %L and t.step_slug = 'asks'$$, :'run_id'),
  $$values ('queued'::text, 0, true)$$,
  'asks has one queued task with its message in the queue');

-- TEST: the step without a handler completes with the payload; its duration is the wait
select results_eq(
  format($$select status, output, started_at, completed_at, initial_tasks, remaining_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'gets'$$, :'run_id'),
  $$values ('completed'::text, '{"ok": true}'::jsonb, now(), now() + interval '60 seconds', 0, 0)$$,
  'gets: completed with {"ok": true}, started when it began waiting, completed now');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'gets'), 0,
  'gets has no task');

-- TEST: its dependents are released, but no other step is started; the run goes on
select results_eq(
  format($$select step_slug, status, remaining_deps from pgflow.step_states
           where run_id = %L and step_slug in ('after', 'later') order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'created'::text, 0), ('later', 'created', 1)$$,
  'after has no pending dependency but is still created; later still waits for asks');
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 3)$$, 'the run is started with 3 steps left (gets done)');

-- TEST: step:started for asks and step:completed for gets are recorded
select results_eq(
  format($$select step_slug, event from pgflow.run_events where id > %s order by id$$, :mark),
  $$values ('asks'::text, 'step:started'::text), ('gets', 'step:completed')$$,
  'one event per step');

-- TEST: a repeated call leaves the steps, which no longer wait, alone
select pgflow_tests.run_snapshot(:'run_id') as before_repeat \gset
select pgflow.advance_clock(60);
select pgflow._finish_waits(:'run_id', array['asks', 'gets']);
select is(pgflow_tests.run_snapshot(:'run_id'), :'before_repeat'::jsonb, 'nothing changed');
select is((select count(*)::int from pgflow.run_events where id > :mark), 2, 'no new event');

select * from finish();
rollback;

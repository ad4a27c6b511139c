begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow ff: gate waits for "go" 60 s and gate2 for "go2" 30 s (on_timeout fail,
-- when_exhausted fail), ok waits for "yes"; next depends on gate. Both gates timed out and
-- ok took a signal (recorded by hand as _resolve_waits does).
select pgflow.create_flow('ff', max_attempts => 1);
select pgflow.add_step('ff', 'gate');
select pgflow.add_wait('ff', 'gate', 'go', timeout => 60);
select pgflow.add_step('ff', 'gate2');
select pgflow.add_wait('ff', 'gate2', 'go2', timeout => 30);
select pgflow.add_step('ff', 'ok');
select pgflow.add_wait('ff', 'ok', 'yes');
select pgflow.add_step('ff', 'next', array['gate']);
select run_id from pgflow.start_flow('ff', '{}'::jsonb) \gset
insert into pgflow.signals (run_id, signal_name, payload, actor, status, taken_at, taken_by_step)
values (:'run_id', 'yes', '{}', 'test', 'taken', now(), 'ok');
update pgflow.wait_states as ws
set resolved_at = now(),
    outcome = case when ws.step_slug = 'ok' then 'signal' else 'timed_out' end,
    signal_id = case when ws.step_slug = 'ok' then (select signal_id from pgflow.signals where taken_by_step = 'ok') end
where ws.run_id = :'run_id';

select pgflow._finish_waits(:'run_id', array['ok', 'gate2', 'gate']);

-- TEST: the first step in fail mode (step_index order) fails with the timeout error, and the
-- run fails with it
select results_eq(
  format($$select step_slug, status, error_message from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'failed'::text, 'Wait for signal ''go'' timed out after 60 seconds'::text),
           ('gate2', 'cancelled', null), ('next', 'cancelled', null), ('ok', 'cancelled', null)$$,
  'gate failed with the timeout error; gate2, ok and next were cancelled with the run');
select results_eq(
  format($$select status, failed_at is not null from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true)$$, 'the run failed');
select is(
  (select details from pgflow.run_events where run_id = :'run_id' and event = 'run:failed'),
  '{"error_message": "Wait for signal ''go'' timed out after 60 seconds"}'::jsonb,
  'run:failed carries gate''s error');

-- TEST: the other outcomes are moot: ok's signal does not start it, nothing stays live
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id'), 0, 'no task was queued');
select is(pgflow_tests.run_leftovers(:'run_id'),
  '{"live_steps": 0, "live_tasks": 0, "queued_messages": 0, "archived_messages": 0, "open_waits": 0}'::jsonb,
  'nothing live is left');

-- SETUP: flow fm: gets waits for "go" (no handler) and feeds the map step items; in one run
-- the signal's payload is an object, in another an array
select pgflow.create_flow('fm', max_attempts => 1);
select pgflow.add_step('fm', 'gets');
select pgflow.add_wait('fm', 'gets', 'go', runs_handler => false);
select pgflow.add_step('fm', 'items', array['gets'], step_type => 'map');
select run_id as bad from pgflow.start_flow('fm', '{}'::jsonb) \gset
select run_id as good from pgflow.start_flow('fm', '{}'::jsonb) \gset
insert into pgflow.signals (run_id, signal_name, payload, actor, status, taken_at, taken_by_step)
values (:'bad', 'go', '{"not": "a list"}', 'test', 'taken', now(), 'gets'),
       (:'good', 'go', '[1, 2]', 'test', 'taken', now(), 'gets');
update pgflow.wait_states as ws
set resolved_at = now(), outcome = 'signal',
    signal_id = (select sg.signal_id from pgflow.signals as sg where sg.run_id = ws.run_id and sg.taken_by_step = 'gets')
where ws.run_id in (:'bad', :'good');
select pgflow._finish_waits(:'bad', array['gets']);
select pgflow._finish_waits(:'good', array['gets']);

-- TEST: an object for a map step fails gets and its run with a type violation
select results_eq(
  format($$select ss.status, ss.error_message, r.status from pgflow.step_states as ss join pgflow.runs as r using (run_id)
           where ss.run_id = %L and ss.step_slug = 'gets'$$, :'bad'),
  $$values ('failed'::text,
            '[TYPE_VIOLATION] Map step items expects array input but dependency gets produced object'::text,
            'failed'::text)$$,
  'gets failed with [TYPE_VIOLATION]; the run failed');

-- TEST: an array completes gets, and the map learns its task count
select results_eq(
  format($$select ss.step_slug, ss.status, ss.output, ss.initial_tasks, ss.remaining_deps from pgflow.step_states as ss
           where ss.run_id = %L order by ss.step_slug$$, :'good'),
  $$values ('gets'::text, 'completed'::text, '[1, 2]'::jsonb, 0, 0), ('items', 'created', null, 2, 0)$$,
  'gets completed with [1, 2]; items will have 2 tasks');

select * from finish();
rollback;

begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" whose payload contains {"ok": true} (handler). Signals are
-- written directly (pending), so _resolve_waits is the only one to act on them.
select pgflow.create_flow('rs', max_attempts => 1);
select pgflow.add_step('rs', 'gate');
select pgflow.add_wait('rs', 'gate', 'go', signal_match => '{"ok": true}', timeout => 60);
select run_id from pgflow.start_flow('rs', '{}'::jsonb) \gset
insert into pgflow.signals (run_id, signal_name, payload, actor) values
  (:'run_id', 'go', '{"ok": false}', 'test'),
  (:'run_id', 'stop', '{"ok": true}', 'test'),
  (:'run_id', 'go', '{"ok": true, "n": 2}', 'test'),
  (:'run_id', 'go', '{"ok": true, "n": 3}', 'test');

-- TEST: the oldest pending signal of its name whose payload matches is taken
select is(pgflow._resolve_waits(:'run_id'), 1, '_resolve_waits resolves one wait');
select results_eq(
  format($$select payload, status, taken_by_step from pgflow.signals where run_id = %L order by signal_id$$, :'run_id'),
  $$values ('{"ok": false}'::jsonb, 'pending'::text, null::text), ('{"ok": true}', 'pending', null),
           ('{"ok": true, "n": 2}', 'taken', 'gate'), ('{"ok": true, "n": 3}', 'pending', null)$$,
  'the first matching "go" is taken; the non-matching one, the other name and the newer one stay pending');
select results_eq(
  format($$select ws.outcome, sg.payload from pgflow.wait_states as ws join pgflow.signals as sg using (signal_id)
           where ws.run_id = %L$$, :'run_id'),
  $$values ('signal'::text, '{"ok": true, "n": 2}'::jsonb)$$, 'the wait records that signal');

-- TEST: the outcome is applied (_finish_waits): gate starts, its task is queued
select results_eq(
  format($$select ss.status, t.status from pgflow.step_states as ss join pgflow.step_tasks as t using (run_id, step_slug)
           where ss.run_id = %L$$, :'run_id'),
  $$values ('started'::text, 'queued'::text)$$, 'gate started with a queued task');

-- TEST: a repeated call resolves nothing; nothing else is taken
select is(pgflow._resolve_waits(:'run_id'), 0, 'a second call resolves nothing');
select is((select count(*)::int from pgflow.signals where run_id = :'run_id' and status = 'taken'), 1, 'one signal taken');

select * from finish();
rollback;

begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: gate waits for "decision" whose payload contains {"ok": true, "level": {"n": 2}}.
select pgflow.create_flow('match', max_attempts => 1);
select pgflow.add_step('match', 'gate');
select pgflow.add_wait('match', 'gate', 'decision', signal_match => '{"ok": true, "level": {"n": 2}}',
                       runs_handler => false);
select run_id from pgflow.start_flow('match', '{}'::jsonb) \gset

-- TEST: payloads that do not contain signal_match stay pending; the step keeps waiting
select results_eq(
  format($$select status from pgflow.send_signal(%L, 'decision', '{"ok": false, "level": {"n": 2}}')$$, :'run_id'),
  $$values ('pending'::text)$$, 'another value of a matched key: pending');
select results_eq(
  format($$select status from pgflow.send_signal(%L, 'decision', '{"ok": true}')$$, :'run_id'),
  $$values ('pending'::text)$$, 'a payload missing a matched key: pending');
select results_eq(
  format($$select status from pgflow.send_signal(%L, 'decision', null)$$, :'run_id'),
  $$values ('pending'::text)$$, 'no payload (JSON null): pending');
select results_eq(
  format($$select status from pgflow.send_signal(%L, 'other', '{"ok": true, "level": {"n": 2}}')$$, :'run_id'),
  $$values ('pending'::text)$$, 'a matching payload under another name: pending');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'),
  'waiting', 'gate is still waiting');

-- TEST: a payload that contains signal_match (and more) is taken
select results_eq(
  format($$select status, taken_by_step from pgflow.send_signal(%L, 'decision',
           '{"ok": true, "level": {"n": 2, "m": 3}, "by": "carol"}')$$, :'run_id'),
  $$values ('taken'::text, 'gate'::text)$$,
  'a payload containing signal_match (with more keys) is taken');
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('completed'::text, '{"ok": true, "level": {"n": 2, "m": 3}, "by": "carol"}'::jsonb)$$,
  'gate completed with the matching payload');
select is(
  (select count(*)::int from pgflow.signals where run_id = :'run_id' and status = 'pending'), 4,
  'the four non-matching signals are still pending (never dropped)');

select * from finish();
rollback;

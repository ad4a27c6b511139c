begin;
select plan(8);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" 24 h (on_timeout continue, no handler) -> after
select pgflow.create_flow('gated', max_attempts => 1);
select pgflow.add_step('gated', 'gate');
select pgflow.add_wait('gated', 'gate', 'go', timeout => 86400, on_timeout => 'continue', runs_handler => false);
select pgflow.add_step('gated', 'after', array['gate']);
select run_id from pgflow.start_flow('gated', '{}'::jsonb) \gset

-- TEST: the wait's deadline is 24 h after it started waiting, on the engine's clock
select results_eq(
  format($$select waiting_since, deadline from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values (now(), now() + interval '86400 seconds')$$, 'waiting since now(), deadline now() + 24 h');

-- TEST: tick does not fire it before the deadline, not even a second before
select results_eq($$select fired_waits from pgflow.tick()$$, $$values (0)$$, 'no fire at once');
select pgflow.advance_clock(86399);
select results_eq($$select fired_waits from pgflow.tick()$$, $$values (0)$$, 'no fire 86399 s later');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'waiting',
  'gate still waits');
select is(
  (select seconds_left from pgflow.get_run_waits(:'run_id')), 1::double precision,
  'get_run_waits: 1 s left on the moved clock');

-- TEST: advance_clock(86400) in all: the tick times it out, on the moved clock
select pgflow.advance_clock(1);
select results_eq($$select fired_waits from pgflow.tick()$$, $$values (1)$$, 'the tick fires it 86400 s later');
select results_eq(
  format($$select outcome, resolved_at from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values ('timed_out'::text, now() + interval '86400 seconds')$$, 'timed out, resolved at now() + 24 h');
select results_eq(
  format($$select status, completed_at from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('completed'::text, now() + interval '86400 seconds')$$, 'gate went on (continue) at now() + 24 h');

select * from finish();
rollback;

begin;
select plan(16);
select pgflow_tests.reset_db();

-- SETUP: a run whose root step waits for "go".
select pgflow.create_flow('bad', max_attempts => 1);
select pgflow.add_step('bad', 'gate');
select pgflow.add_wait('bad', 'gate', 'go');
select run_id from pgflow.start_flow('bad', '{}'::jsonb) \gset
create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'steps', (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
    'waits', (select jsonb_agg(to_jsonb(w) order by w.run_id, w.step_slug) from pgflow.wait_states as w),
    'signals', (select count(*) from pgflow.signals),
    'events', (select count(*) from pgflow.run_events));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: bad signal names raise 22023
select throws_like(
  format($$select * from pgflow.send_signal(%L, null)$$, :'run_id'),
  'send_signal: signal name must be 1 to 128 characters%', 'a NULL name raises');
select throws_ok(format($$select * from pgflow.send_signal(%L, '')$$, :'run_id'), '22023', null, 'an empty name raises 22023');
select throws_ok(format($$select * from pgflow.send_signal(%L, '   ')$$, :'run_id'), '22023', null, 'a blank name raises 22023');
select throws_ok(format($$select * from pgflow.send_signal(%L, ' go')$$, :'run_id'), '22023', null, 'a leading space raises 22023');
select throws_ok(format($$select * from pgflow.send_signal(%L, 'go ')$$, :'run_id'), '22023', null, 'a trailing space raises 22023');
select throws_ok(format($$select * from pgflow.send_signal(%L, E'g\no')$$, :'run_id'), '22023', null, 'a control character raises 22023');
select throws_ok(format($$select * from pgflow.send_signal(%L, repeat('x', 129))$$, :'run_id'), '22023', null, '129 characters raise 22023');

-- TEST: a blank or missing actor raises 22023
select throws_like(
  format($$select * from pgflow.send_signal(%L, 'go', null, null, '  ')$$, :'run_id'),
  'send_signal: actor must name who acts%', 'a blank actor raises');
select throws_ok(format($$select * from pgflow.send_signal(%L, 'go', null, null, null)$$, :'run_id'), '22023', null, 'a NULL actor raises 22023');
select throws_ok(format($$select * from pgflow.send_signal(%L, 'go', null, null, E'a\nb')$$, :'run_id'), '22023', null, 'a multi-line actor raises 22023');

-- TEST: a key over 255 characters raises 22023
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', null, repeat('k', 256))$$, :'run_id'),
  '22023', 'send_signal: idempotency_key must be at most 255 characters (got 256)', 'a 256-character key raises 22023');

-- TEST: a payload over pgflow.max_payload_bytes raises 54000
select set_config('pgflow.max_payload_bytes', '1kB', true);
select throws_like(
  format($$select * from pgflow.send_signal(%L, 'go', to_jsonb(repeat('x', 2000)))$$, :'run_id'),
  'Signal payload is % bytes, over the limit of 1024 bytes%', 'an oversized payload raises');
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', to_jsonb(repeat('x', 2000)))$$, :'run_id'),
  '54000', null, 'with SQLSTATE 54000');

-- TEST: nothing was written: the step still waits, no signal, no event
select is(pg_temp.state(), (select s from before), 'steps, waits, signals and events are unchanged');

-- TEST: the limits themselves are accepted
select results_eq(
  format($$select length(idempotency_key), status from pgflow.send_signal(%L, repeat('x', 128), null, repeat('k', 255))$$, :'run_id'),
  $$values (255, 'pending'::text)$$,
  'a 128-character name and a 255-character key are accepted');
select results_eq(
  format($$select status from pgflow.send_signal(%L, 'go', to_jsonb(repeat('x', 900)))$$, :'run_id'),
  $$values ('taken'::text)$$,
  'a payload under the limit is accepted');

select * from finish();
rollback;

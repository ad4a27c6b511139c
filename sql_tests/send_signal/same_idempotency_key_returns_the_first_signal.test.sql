begin;
select plan(13);
select pgflow_tests.reset_db();

-- SETUP: two root steps that wait for "approved" with no handler: a (step_index 0), b (1).
select pgflow.create_flow('idem', max_attempts => 1);
select pgflow.add_step('idem', 'a');
select pgflow.add_wait('idem', 'a', 'approved', runs_handler => false);
select pgflow.add_step('idem', 'b');
select pgflow.add_wait('idem', 'b', 'approved', runs_handler => false);
select run_id from pgflow.start_flow('idem', '{}'::jsonb) \gset
select signal_id as first_id, received_at as first_received
from pgflow.send_signal(:'run_id', 'approved', '{"n": 1}', 'key-1', 'alice', 'first try') \gset
select max(id) as last_event from pgflow.run_events \gset

-- TEST: the first send with a key is stored and taken by a
select results_eq(
  format($$select status, taken_by_step, idempotency_key from pgflow.signals where signal_id = %s$$, :'first_id'),
  $$values ('taken'::text, 'a'::text, 'key-1'::text)$$,
  'the first signal is stored with its key and taken by a'
);

-- TEST: the same key again returns that first signal, duplicate = true ...
select results_eq(
  format($$select signal_id, signal_name, payload, idempotency_key, status, received_at, taken_by_step,
                  actor, reason, duplicate
           from pgflow.send_signal(%L, 'approved', '{"n": 2}', 'key-1', 'bob', 'retry')$$, :'run_id'),
  format($$values (%s::bigint, 'approved'::text, '{"n": 1}'::jsonb, 'key-1'::text, 'taken'::text,
                   %L::timestamptz, 'a'::text, 'alice'::text, 'first try'::text, true)$$,
         :'first_id', :'first_received'),
  'a duplicate send returns the first signal as stored (its payload, actor, reason), duplicate true'
);
-- ... even with another name: the key identifies the signal of the run
select results_eq(
  format($$select signal_id, signal_name, duplicate from pgflow.send_signal(%L, 'other', null, 'key-1')$$, :'run_id'),
  format($$values (%s::bigint, 'approved'::text, true)$$, :'first_id'),
  'the same key with another signal name also returns the first signal'
);

-- TEST: ... stores nothing and wakes nothing
select is((select count(*)::int from pgflow.signals where run_id = :'run_id'), 1, 'still one signal stored');
select results_eq(
  format($$select status from pgflow.step_states where run_id = %L and step_slug = 'b'$$, :'run_id'),
  $$values ('waiting'::text)$$,
  'b (waiting for the same name) is still waiting'
);
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run_id', :'last_event'),
  format($$values ('signal:duplicate'::text, 'bob'::text, 'retry'::text,
                   jsonb_build_object('signal_id', %s, 'signal_name', 'approved', 'idempotency_key', 'key-1')),
                  ('signal:duplicate', 'app', null, jsonb_build_object('signal_id', %s, 'signal_name',
                   'approved', 'idempotency_key', 'key-1'))$$, :'first_id', :'first_id'),
  'only signal:duplicate events were recorded, with who sent them'
);

-- TEST: another key is a new signal: b takes it and the run completes
select results_eq(
  format($$select status, taken_by_step, duplicate from pgflow.send_signal(%L, 'approved', '{"n": 3}', 'key-2')$$, :'run_id'),
  $$values ('taken'::text, 'b'::text, false)$$,
  'a signal with another key is stored and taken by b'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'completed', 'the run completed');

-- TEST: after the run completed, the same key still returns the first signal (no error)
select results_eq(
  format($$select signal_id, duplicate from pgflow.send_signal(%L, 'approved', '{"n": 4}', 'key-1')$$, :'run_id'),
  format($$values (%s::bigint, true)$$, :'first_id'),
  'a client retrying after the run completed gets the first signal, duplicate true'
);
select is((select count(*)::int from pgflow.signals where run_id = :'run_id'), 2, 'still two signals stored');
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'approved', '{"n": 5}', 'key-3')$$, :'run_id'),
  '55000', format('send_signal: run %s is completed', :'run_id'),
  'a new key to a completed run raises 55000'
);

-- TEST: keys are per run: the same key on another run is a new signal
select run_id as other_run from pgflow.start_flow('idem', '{}'::jsonb) \gset
select results_eq(
  format($$select status, taken_by_step, duplicate from pgflow.send_signal(%L, 'approved', '{"n": 6}', 'key-1')$$, :'other_run'),
  $$values ('taken'::text, 'a'::text, false)$$,
  'key-1 on another run is stored and taken there'
);
select is((select count(*)::int from pgflow.signals where idempotency_key = 'key-1'), 2,
  'one key-1 signal per run');

select * from finish();
rollback;

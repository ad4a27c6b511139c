begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: prep -> gate (waits for "go", handler).
select pgflow.create_flow('ev', max_attempts => 1);
select pgflow.add_step('ev', 'prep');
select pgflow.add_step('ev', 'gate', array['prep']);
select pgflow.add_wait('ev', 'gate', 'go');
select run_id from pgflow.start_flow('ev', '{}'::jsonb) \gset
select max(id) as mark from pgflow.run_events \gset

-- TEST: a signal nobody waits for: signal:received with the sender's actor and reason
select signal_id as s1 from pgflow.send_signal(:'run_id', 'go', '{"a": 1}', 'k1', 'alice', 'approved by phone') \gset
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.get_run_events(%L) where id > %s$$,
         :'run_id', :'mark'),
  format($$values (null::text, 'signal:received'::text, 'alice'::text, 'approved by phone'::text,
                   jsonb_build_object('signal_id', %s, 'signal_name', 'go', 'idempotency_key', 'k1'))$$, :'s1'),
  'signal:received (run event) with actor, reason, signal id, name and key');

-- TEST: a duplicate: signal:duplicate with who sent it again
select max(id) as mark from pgflow.run_events \gset
select count(*) from pgflow.send_signal(:'run_id', 'go', '{"a": 2}', 'k1', 'bob', 'again');
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.get_run_events(%L) where id > %s$$,
         :'run_id', :'mark'),
  format($$values (null::text, 'signal:duplicate'::text, 'bob'::text, 'again'::text,
                   jsonb_build_object('signal_id', %s, 'signal_name', 'go', 'idempotency_key', 'k1'))$$, :'s1'),
  'signal:duplicate with the first signal''s id');

-- TEST: taken later, when the step starts waiting: signal:taken by the step, then step:started
select max(id) as mark from pgflow.run_events \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'prep');
select results_eq(
  format($$select step_slug, event, details from pgflow.get_run_events(%L) where id > %s order by id$$,
         :'run_id', :'mark'),
  format($$values ('prep'::text, 'step:completed'::text, null::jsonb),
                  ('gate', 'step:waiting', jsonb_build_object('signal_name', 'go')),
                  ('gate', 'signal:taken', jsonb_build_object('outcome', 'signal', 'signal_id', %s)),
                  ('gate', 'step:started', null)$$, :'s1'),
  'step:waiting, signal:taken (with the signal id), step:started');

-- TEST: taken at once by a waiting step: signal:received, signal:taken, step:started, all by the sender
select run_id as r2 from pgflow.start_flow('ev', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'r2', 'prep');
select max(id) as mark from pgflow.run_events \gset
select signal_id as s2 from pgflow.send_signal(:'r2', 'go', null, null, 'carol', 'ok') \gset
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.get_run_events(%L) where id > %s order by id$$,
         :'r2', :'mark'),
  format($$values (null::text, 'signal:received'::text, 'carol'::text, 'ok'::text,
                   jsonb_build_object('signal_id', %s, 'signal_name', 'go')),
                  ('gate', 'signal:taken', 'carol', 'ok', jsonb_build_object('outcome', 'signal', 'signal_id', %s)),
                  ('gate', 'step:started', 'carol', 'ok', null)$$, :'s2', :'s2'),
  'signal:received (no key in details), signal:taken, step:started, by carol');

-- TEST: the actor does not leak into later statements of the transaction
select pgflow_tests.start_and_complete_task(:'r2', 'gate');
select is(
  (select actor from pgflow.run_events where run_id = :'r2' and event = 'step:completed' and step_slug = 'gate'),
  'worker:11111111-1111-1111-1111-111111111111', 'a later report is recorded as the worker''s, not carol''s');

select * from finish();
rollback;

begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "go" 60 s, handler) -> after; nap (timer 3600 s) -> later.
select pgflow.create_flow('cw', max_attempts => 1);
select pgflow.add_step('cw', 'gate');
select pgflow.add_wait('cw', 'gate', 'go', timeout => 60);
select pgflow.add_step('cw', 'after', array['gate']);
select pgflow.add_step('cw', 'nap');
select pgflow.add_timer('cw', 'nap', seconds => 3600);
select pgflow.add_step('cw', 'later', array['nap']);
select run_id from pgflow.start_flow('cw', '{}'::jsonb) \gset

-- TEST: complete_step accepts a waiting step: it ends the wait without a signal
select results_eq(
  format($$select status, changed, detail from pgflow.complete_step(%L, 'gate', '{"manual": true}', 'alice', 'approved by phone')$$, :'run_id'),
  $$values ('started'::text, true, null::text)$$, 'complete_step on a waiting step changes the run');
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('completed'::text, '{"manual": true}'::jsonb)$$, 'gate completed with the given output');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'gate'), 0,
  'gate never got a task');
select results_eq(
  format($$select input from pgflow_tests.start_task(%L, 'after')$$, :'run_id'),
  $$values ('{"gate": {"manual": true}}'::jsonb)$$, 'after starts with gate''s output');
select is((select actor from pgflow.run_events where run_id = :'run_id' and step_slug = 'gate' and event = 'step:completed'),
  'alice', 'step:completed by alice');

-- TEST: a timer can be completed by hand too (to skip the sleep)
select results_eq(
  format($$select status, changed from pgflow.complete_step(%L, 'nap', '"woken"', 'alice', null)$$, :'run_id'),
  $$values ('started'::text, true)$$, 'complete_step on a waiting timer');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'later'), 'started',
  'later started');

-- TEST: a signal sent afterwards stays pending; tick does not fire the old waits
select results_eq(
  format($$select status from pgflow.send_signal(%L, 'go', '{}')$$, :'run_id'),
  $$values ('pending'::text)$$, 'a later signal stays pending');
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');
select results_eq(
  format($$select step_slug, outcome from pgflow.wait_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'abandoned'::text), ('nap', 'abandoned')$$, 'both waits are abandoned');

select * from finish();
rollback;

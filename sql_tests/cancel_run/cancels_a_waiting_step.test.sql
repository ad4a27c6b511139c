begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "go" 60 s) -> after; nap (timer 60 s).
select pgflow.create_flow('cx', max_attempts => 1);
select pgflow.add_step('cx', 'gate');
select pgflow.add_wait('cx', 'gate', 'go', timeout => 60);
select pgflow.add_step('cx', 'after', array['gate']);
select pgflow.add_step('cx', 'nap');
select pgflow.add_timer('cx', 'nap', seconds => 60);
select run_id from pgflow.start_flow('cx', '{}'::jsonb) \gset

-- TEST: cancel_run cancels the waiting steps
select results_eq(
  format($$select status, changed from pgflow.cancel_run(%L, 'alice', 'stop')$$, :'run_id'),
  $$values ('cancelled'::text, true)$$, 'cancel_run cancels the run');
select results_eq(
  format($$select step_slug, status, cancelled_at is not null from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'cancelled'::text, true), ('gate', 'cancelled', true), ('nap', 'cancelled', true)$$,
  'gate and nap (waiting) are cancelled, as after (created)');
select results_eq(
  format($$select step_slug from pgflow.run_events where run_id = %L and event = 'step:cancelled' order by step_slug$$, :'run_id'),
  $$values ('after'::text), ('gate'), ('nap')$$, 'step:cancelled for each');

-- TEST: a later signal raises 55000 and stores nothing
select count(*)::int as events_before from pgflow.run_events \gset
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go', '{}')$$, :'run_id'),
  '55000', format('send_signal: run %s is cancelled', :'run_id'), 'send_signal to the cancelled run raises 55000');
select is((select count(*)::int from pgflow.signals), 0, 'no signal stored');
select is((select count(*)::int from pgflow.run_events), :events_before, 'no event recorded');

-- TEST: tick never fires the waits of the cancelled run
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');
select results_eq(
  format($$select step_slug, outcome from pgflow.wait_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'abandoned'::text), ('nap', 'abandoned')$$, 'their waits are abandoned');

select * from finish();
rollback;

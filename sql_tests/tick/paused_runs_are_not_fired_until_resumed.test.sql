begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "go" 60 s, on_timeout skip) -> after; nap (timer 60 s). A run, paused.
select pgflow.create_flow('pf', max_attempts => 1);
select pgflow.add_step('pf', 'gate');
select pgflow.add_wait('pf', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('pf', 'nap');
select pgflow.add_timer('pf', 'nap', seconds => 60);
select pgflow.add_step('pf', 'after', array['gate', 'nap']);
select run_id from pgflow.start_flow('pf', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'run_id', 'alice', 'hold');
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';

-- TEST: tick leaves the waits of a paused run alone, even past their deadlines
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing in a paused run');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'created'::text), ('gate', 'waiting'), ('nap', 'waiting')$$,
  'gate and nap still wait');
select is((select count(*)::int from pgflow.wait_states where run_id = :'run_id' and resolved_at is null), 2,
  'both waits are open (not abandoned either)');

-- TEST: resume_run settles them at once (no tick needed): gate times out, nap fires
select results_eq(
  format($$select status, changed from pgflow.resume_run(%L, 'alice', 'go on')$$, :'run_id'),
  $$values ('started'::text, true)$$, 'resume_run resumes the run');
select results_eq(
  format($$select step_slug, outcome from pgflow.wait_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'timed_out'::text), ('nap', 'due')$$, 'gate timed out and nap is due');
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'started'::text, null::text), ('gate', 'skipped', 'timed_out'), ('nap', 'completed', null)$$,
  'gate skipped, nap completed, after started');
select is(
  (select actor from pgflow.run_events where run_id = :'run_id' and event = 'wait:timed_out'), 'alice',
  'the timeout is recorded as part of alice''s resume');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a tick afterwards fires nothing');

select * from finish();
rollback;

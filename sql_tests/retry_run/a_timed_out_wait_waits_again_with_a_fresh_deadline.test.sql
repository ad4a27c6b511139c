begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: prep -> gate (waits for "go" 60 s, on_timeout fail, handler) -> after. prep done;
-- gate timed out long ago, which failed the run.
select pgflow.create_flow('rt', max_attempts => 1);
select pgflow.add_step('rt', 'prep');
select pgflow.add_step('rt', 'gate', array['prep']);
select pgflow.add_wait('rt', 'gate', 'go', timeout => 60);
select pgflow.add_step('rt', 'after', array['gate']);
select run_id from pgflow.start_flow('rt', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'prep', 0, '"p"'::jsonb);
update pgflow.wait_states set waiting_since = now() - interval '1 hour', deadline = now() - interval '1 hour' + interval '60 seconds'
where run_id = :'run_id';
select count(*) from pgflow.tick();
select results_eq(
  format($$select r.status, ss.status from pgflow.runs as r join pgflow.step_states as ss using (run_id)
           where r.run_id = %L and ss.step_slug = 'gate'$$, :'run_id'),
  $$values ('failed'::text, 'failed'::text)$$, 'setup: the timeout failed gate and the run');

-- TEST: retry_run: gate waits again, in a fresh wait (new waiting_since, deadline = now + 60 s)
select results_eq(
  format($$select status, changed from pgflow.retry_run(%L, 'alice', 'try again')$$, :'run_id'),
  $$values ('started'::text, true)$$, 'retry_run restarts the run');
select results_eq(
  format($$select status, error_message from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('waiting'::text, null::text)$$, 'gate waits again, its error cleared');
select results_eq(
  format($$select waiting_since = now(), deadline = now() + interval '60 seconds', resolved_at, outcome
           from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values (true, true, null::timestamptz, null::text)$$, 'its wait is fresh: waiting since now, deadline now + 60 s');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'prep'), 'completed',
  'prep is not run again');
select results_eq(
  format($$select step_slug, event from pgflow.run_events where run_id = %L and actor = 'alice' order by id$$, :'run_id'),
  $$values ('after'::text, 'step:reset'::text), ('gate', 'step:reset'), (null, 'run:retried'), ('gate', 'step:waiting')$$,
  'step:reset (after, cancelled; gate, failed), run:retried, step:waiting (by alice)');

-- TEST: the new wait is not fired by a tick before its new deadline; a signal now ends it
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');
select results_eq(
  format($$select status, taken_by_step from pgflow.send_signal(%L, 'go', '{"ok": 1}')$$, :'run_id'),
  $$values ('taken'::text, 'gate'::text)$$, 'a signal is taken by gate');
select results_eq(
  format($$select timed_out, payload from pgflow.get_step_signal(%L, 'gate')$$, :'run_id'),
  $$values (false, '{"ok": 1}'::jsonb)$$, 'get_step_signal gives the new signal, not the old timeout');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'started', 'gate started');

select * from finish();
rollback;

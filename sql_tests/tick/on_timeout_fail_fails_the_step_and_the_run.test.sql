begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "approved" at most 60 s, on_timeout fail, handler) -> after.
select pgflow.create_flow('tf', max_attempts => 1);
select pgflow.add_step('tf', 'gate');
select pgflow.add_wait('tf', 'gate', 'approved', timeout => 60, on_timeout => 'fail');
select pgflow.add_step('tf', 'after', array['gate']);
select run_id from pgflow.start_flow('tf', '{}'::jsonb) \gset

-- TEST: before the deadline a tick fires nothing
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a tick before the deadline fires nothing');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'waiting',
  'gate still waits');

-- TEST: once the deadline has passed, tick times the wait out and the step fails
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 1, 0, 0, 0, 0)$$, 'tick fires one wait');
select results_eq(
  format($$select outcome, resolved_at is not null, signal_id from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values ('timed_out'::text, true, null::bigint)$$,
  'the wait is resolved: timed_out, no signal');
select results_eq(
  format($$select status, error_message, failed_at is not null from pgflow.step_states
           where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('failed'::text, 'Wait for signal ''approved'' timed out after 60 seconds'::text, true)$$,
  'gate failed: "Wait for signal ''approved'' timed out after 60 seconds"');
select results_eq(
  format($$select status, failed_at is not null from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true)$$, 'the run failed (when_exhausted fail)');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'after'), 'cancelled',
  'after, never started, is cancelled');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id'), 0, 'no task was ever created');
select results_eq(
  format($$select step_slug, event from pgflow.run_events where run_id = %L
           and event in ('wait:timed_out', 'step:failed', 'run:failed') order by id$$, :'run_id'),
  $$values ('gate'::text, 'wait:timed_out'::text), ('gate', 'step:failed'), (null, 'run:failed')$$,
  'wait:timed_out, step:failed, run:failed');
select is(
  (select details from pgflow.run_events where run_id = :'run_id' and event = 'wait:timed_out'),
  '{"outcome": "timed_out"}'::jsonb, 'wait:timed_out details: its outcome');

select * from finish();
rollback;

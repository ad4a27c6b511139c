begin;
select plan(7);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow tm: nap sleeps 60 s -> after; remind sleeps until input.at (when_exhausted
-- fail). Flow tk: remind sleeps until input.at with when_exhausted skip -> then. The engine's
-- time moves 90 s on; nap is due (fired late), the remind timers are unreadable (recorded by
-- hand as _resolve_waits does).
select pgflow.create_flow('tm', max_attempts => 1);
select pgflow.add_step('tm', 'nap');
select pgflow.add_timer('tm', 'nap', seconds => 60);
select pgflow.add_step('tm', 'after', array['nap']);
select pgflow.add_step('tm', 'remind');
select pgflow.add_timer('tm', 'remind', until_path => 'input.at');
select pgflow.create_flow('tk', max_attempts => 1);
select pgflow.add_step('tk', 'remind', when_exhausted => 'skip');
select pgflow.add_timer('tk', 'remind', until_path => 'input.at');
select pgflow.add_step('tk', 'then', array['remind']);
select run_id from pgflow.start_flow('tm', '{"at": "2099-01-01T00:00:00Z"}'::jsonb) \gset
select run_id as skipping from pgflow.start_flow('tk', '{"at": "2099-01-01T00:00:00Z"}'::jsonb) \gset
select pgflow.advance_clock(90);
update pgflow.wait_states set resolved_at = now() + interval '90 seconds', outcome = 'due'
where run_id = :'run_id' and step_slug = 'nap';

-- TEST: a due timer completes with {"due_at", "fired_at"}, started when it began waiting
select pgflow._finish_waits(:'run_id', array['nap']);
select results_eq(
  format($$select status, output, started_at, completed_at, initial_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'nap'$$, :'run_id'),
  $$values ('completed'::text,
            jsonb_build_object('due_at', now() + interval '60 seconds', 'fired_at', now() + interval '90 seconds'),
            now(), now() + interval '90 seconds', 0)$$,
  'nap completed: due at +60 s, fired at +90 s (the engine''s time), started when it began waiting');
select results_eq(
  format($$select status, remaining_deps from pgflow.step_states where run_id = %L and step_slug = 'after'$$, :'run_id'),
  $$values ('created'::text, 0)$$, 'after is released but not started');
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run_id' and step_slug = 'nap' and event = 'step:completed'),
  1, 'step:completed recorded for nap');

-- TEST: an unreadable timer fails its step with the timer's error; when_exhausted fail fails the run
update pgflow.wait_states
set resolved_at = now() + interval '90 seconds', outcome = 'unreadable', error_message = 'no timestamp at input.at'
where run_id in (:'run_id', :'skipping') and step_slug = 'remind';
select pgflow._finish_waits(:'run_id', array['remind']);
select results_eq(
  format($$select ss.status, ss.error_message, r.status from pgflow.step_states as ss join pgflow.runs as r using (run_id)
           where ss.run_id = %L and ss.step_slug = 'remind'$$, :'run_id'),
  $$values ('failed'::text, 'no timestamp at input.at'::text, 'failed'::text)$$,
  'remind failed with the timer''s error, and the run failed');
select is((select details from pgflow.run_events where run_id = :'run_id' and event = 'run:failed'),
  '{"error_message": "no timestamp at input.at"}'::jsonb, 'run:failed carries the timer''s error');

-- TEST: with when_exhausted skip the step is skipped (timed_out), keeps the error, and
-- releases its dependent
select pgflow._finish_waits(:'skipping', array['remind']);
select results_eq(
  format($$select step_slug, status, skip_reason, error_message, remaining_deps from pgflow.step_states
           where run_id = %L order by step_slug$$, :'skipping'),
  $$values ('remind'::text, 'skipped'::text, 'timed_out'::text, 'no timestamp at input.at'::text, 0),
           ('then', 'created', null, null, 0)$$,
  'remind skipped with its error; then released');
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'skipping'),
  $$values ('started'::text, 1)$$, 'that run goes on with 1 step left');

select * from finish();
rollback;

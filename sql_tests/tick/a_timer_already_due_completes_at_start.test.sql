begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow "past": remind is a root timer until input.at -> after; flow "zero": a root
-- timer of 0 seconds.
select pgflow.create_flow('past', max_attempts => 1);
select pgflow.add_step('past', 'remind');
select pgflow.add_timer('past', 'remind', until_path => 'input.at');
select pgflow.add_step('past', 'after', array['remind']);
select pgflow.create_flow('zero', max_attempts => 1);
select pgflow.add_step('zero', 'nap');
select pgflow.add_timer('zero', 'nap', seconds => 0);

-- TEST: a time already past completes the timer inside start_flow, no tick needed
select run_id from pgflow.start_flow('past', '{"at": "2000-01-01T00:00:00Z"}'::jsonb) \gset
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'remind'$$, :'run_id'),
  $$values ('completed'::text, jsonb_build_object('due_at', '2000-01-01 00:00:00+00'::timestamptz, 'fired_at', now()))$$,
  'remind completed at start: {"due_at": 2000-01-01, "fired_at": now}');
select results_eq(
  format($$select outcome, deadline from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values ('due'::text, '2000-01-01 00:00:00+00'::timestamptz)$$, 'its wait: due, deadline the time read');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'after'), 'started',
  'after started at once');

-- TEST: a date without time (midnight UTC) in the past does the same
select run_id as date_only from pgflow.start_flow('past', '{"at": "1999-12-31"}'::jsonb) \gset
select results_eq(
  format($$select ss.status, ws.deadline from pgflow.step_states as ss join pgflow.wait_states as ws using (run_id, step_slug)
           where ss.run_id = %L$$, :'date_only'),
  $$values ('completed'::text, '1999-12-31 00:00:00+00'::timestamptz)$$, 'a past date completes it at once');

-- TEST: a timer of 0 seconds completes at start; its run completes
select run_id as zero_run from pgflow.start_flow('zero', '{}'::jsonb) \gset
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'zero_run'),
  $$values ('completed'::text, jsonb_build_object('nap', jsonb_build_object('due_at', now(), 'fired_at', now())))$$,
  'a 0-second timer completes at start, and so does its run');

-- TEST: tick has nothing to do for any of them
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');
select is(
  (select count(*)::int from pgflow.run_events where event = 'timer:fired'), 3, 'one timer:fired per run');

select * from finish();
rollback;

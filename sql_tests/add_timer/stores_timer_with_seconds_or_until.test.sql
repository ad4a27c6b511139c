begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('reminders');
select pgflow.add_step('reminders', 'order');
select pgflow.add_step('reminders', 'cool_off', array['order']);
select pgflow.add_step('reminders', 'now_or_never');
select pgflow.add_step('reminders', 'remind');
select pgflow.add_step('reminders', 'ship_by', array['order']);

-- TEST: a timer of N seconds
select is(
  (select to_jsonb(w) - 'created_at' from pgflow.add_timer('reminders', 'cool_off', seconds => 3600) as w),
  '{"flow_slug": "reminders", "step_slug": "cool_off", "kind": "timer", "signal_name": null,
    "signal_match": null, "timeout_seconds": null, "on_timeout": "fail", "runs_handler": false,
    "sleep_seconds": 3600, "sleep_until": null}'::jsonb,
  'add_timer with seconds returns the stored timer (no handler, no signal)');
select is((select sleep_seconds from pgflow.add_timer('reminders', 'now_or_never', 0)), 0,
  'a timer of 0 seconds is accepted');

-- TEST: a timer until a timestamp in the run input or in a dependency's output
select is((select sleep_until from pgflow.add_timer('reminders', 'remind', until_path => 'input.remind_at')),
  'input.remind_at', 'a path into the run input is stored');
select is((select sleep_until from pgflow.add_timer('reminders', 'ship_by', until_path => 'order.dates.ship_by')),
  'order.dates.ship_by', 'a path into a dependency''s output is stored');
select is(
  (select jsonb_object_agg(step_slug, coalesce(sleep_seconds::text, sleep_until)) from pgflow.step_waits
   where flow_slug = 'reminders' and kind = 'timer' and not runs_handler),
  '{"cool_off": "3600", "now_or_never": "0", "remind": "input.remind_at", "ship_by": "order.dates.ship_by"}'::jsonb,
  'the four timers are stored, none with a handler');

select * from finish();
rollback;

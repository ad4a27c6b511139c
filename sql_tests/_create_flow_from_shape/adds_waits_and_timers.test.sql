begin;
select plan(5);

-- SETUP: a shape with a handler that waits, a wait without handler (defaults), two timers
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('waits', pgflow_tests.shape(
  pgflow_tests.shape_step('submit'),
  pgflow_tests.shape_step('review', dependencies => array['submit'])
    || '{"wait": {"kind": "signal", "signal": "reviewed", "match": {"region": "eu"}, "timeout": 600,
                  "onTimeout": "continue", "handler": true}}',
  pgflow_tests.shape_step('approved', dependencies => array['submit'])
    || '{"wait": {"kind": "signal", "signal": "approved", "handler": false}}',
  pgflow_tests.shape_step('cool_off', dependencies => array['approved'])
    || '{"wait": {"kind": "timer", "seconds": 60, "until": null}}',
  pgflow_tests.shape_step('remind', dependencies => array['submit'])
    || '{"wait": {"kind": "timer", "until": "submit.remind_at"}}'));

-- TEST: each "wait" became a step_waits row, the plain step has none
select is(
  (select to_jsonb(w) - 'created_at' - 'flow_slug' - 'step_slug' - 'sleep_seconds' - 'sleep_until'
   from pgflow.step_waits as w where w.step_slug = 'review'),
  '{"kind": "signal", "signal_name": "reviewed", "signal_match": {"region": "eu"}, "timeout_seconds": 600,
    "on_timeout": "continue", "runs_handler": true}'::jsonb,
  'a signal wait with every key is stored as given');
select is(
  (select to_jsonb(w) - 'created_at' - 'flow_slug' - 'step_slug' - 'sleep_seconds' - 'sleep_until'
   from pgflow.step_waits as w where w.step_slug = 'approved'),
  '{"kind": "signal", "signal_name": "approved", "signal_match": null, "timeout_seconds": null,
    "on_timeout": "fail", "runs_handler": false}'::jsonb,
  'missing match, timeout and onTimeout take add_wait''s defaults');
select is(
  (select jsonb_build_object('s', sleep_seconds, 'u', sleep_until, 'h', runs_handler)
   from pgflow.step_waits where step_slug = 'cool_off'),
  '{"s": 60, "u": null, "h": false}'::jsonb, 'a timer of seconds is stored');
select is(
  (select jsonb_build_object('s', sleep_seconds, 'u', sleep_until) from pgflow.step_waits where step_slug = 'remind'),
  '{"s": null, "u": "submit.remind_at"}'::jsonb, 'a timer until a path is stored');
select is((select count(*)::int from pgflow.step_waits where step_slug = 'submit'), 0,
  'the step without "wait" does not wait');

select * from finish();
rollback;

begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'submit');
select pgflow.add_step('approval', 'approved', array['submit']);

-- TEST: only the signal name given: any payload, no timeout, fail on timeout, a handler
select is(
  (select to_jsonb(w) - 'created_at' from pgflow.add_wait('approval', 'approved', 'approved') as w),
  '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "approved",
    "signal_match": null, "timeout_seconds": null, "on_timeout": "fail", "runs_handler": true,
    "sleep_seconds": null, "sleep_until": null}'::jsonb,
  'add_wait returns the step_waits row with the defaults of the optional arguments');
select is(
  (select to_jsonb(w) - 'created_at' from pgflow.step_waits as w
   where w.flow_slug = 'approval' and w.step_slug = 'approved'),
  '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "approved",
    "signal_match": null, "timeout_seconds": null, "on_timeout": "fail", "runs_handler": true,
    "sleep_seconds": null, "sleep_until": null}'::jsonb,
  'the row is stored');
select is((select count(*)::int from pgflow.step_waits where step_slug = 'submit'), 0,
  'the other step does not wait');

select * from finish();
rollback;

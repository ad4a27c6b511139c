begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('shipping');
select pgflow.add_step('shipping', 'order');
select pgflow.add_step('shipping', 'shipped', array['order']);
select pgflow.add_step('shipping', 'reminder');

-- TEST: match, timeout, on_timeout and runs_handler are stored as given
select pgflow.add_wait('shipping', 'shipped', 'parcel.shipped', signal_match => '{"region": "eu"}',
  timeout => 86400, on_timeout => 'skip-cascade', runs_handler => false);
select is(
  (select to_jsonb(w) - 'created_at' - 'flow_slug' - 'step_slug' from pgflow.step_waits as w
   where w.step_slug = 'shipped'),
  '{"kind": "signal", "signal_name": "parcel.shipped", "signal_match": {"region": "eu"},
    "timeout_seconds": 86400, "on_timeout": "skip-cascade", "runs_handler": false,
    "sleep_seconds": null, "sleep_until": null}'::jsonb,
  'every setting of add_wait is stored');

-- TEST: on_timeout continue and an empty match object are accepted
select pgflow.add_wait('shipping', 'reminder', 'ping', signal_match => '{}', on_timeout => 'continue');
select is(
  (select jsonb_build_object('m', w.signal_match, 'o', w.on_timeout) from pgflow.step_waits as w
   where w.step_slug = 'reminder'),
  '{"m": {}, "o": "continue"}'::jsonb,
  'an empty match object and on_timeout continue are stored');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a root step waiting for "go" (a pending signal is enough here).
select pgflow.create_flow('blank', max_attempts => 1);
select pgflow.add_step('blank', 'prep');
select pgflow.add_step('blank', 'gate', array['prep']);
select pgflow.add_wait('blank', 'gate', 'go');
select run_id from pgflow.start_flow('blank', '{}'::jsonb) \gset

-- TEST: a blank key is no key: two sends with a blank key store two signals
select results_eq(
  format($$select idempotency_key, duplicate from pgflow.send_signal(%L, 'go', null, '')$$, :'run_id'),
  $$values (null::text, false)$$,
  'an empty key is stored as no key, not a duplicate'
);
select results_eq(
  format($$select idempotency_key, duplicate from pgflow.send_signal(%L, 'go', null, '   ')$$, :'run_id'),
  $$values (null::text, false)$$,
  'a whitespace key is stored as no key, not a duplicate'
);
select results_eq(
  format($$select idempotency_key, duplicate from pgflow.send_signal(%L, 'go', null, null)$$, :'run_id'),
  $$values (null::text, false)$$,
  'a NULL key likewise'
);
select is((select count(*)::int from pgflow.signals where run_id = :'run_id' and idempotency_key is null), 3,
  'three signals were stored, none with a key');

select * from finish();
rollback;

begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: a limited flow (a keyed start would take a slot) with one step
select pgflow_tests.limited_flow('far', 2, 'queue');
select pgflow_tests.write_counts()::text as before \gset

-- TEST: an infinite deadline raises 22023 "too far away", also with keys and a run_id
select throws_ok(
  $$select * from pgflow.start_flow('far', '{}'::jsonb, deadline => 'infinity')$$,
  '22023', 'start_flow: deadline infinity is too far away (it must be before 9999-01-01 00:00:00+00)',
  'deadline infinity raises invalid_parameter_value'
);
select throws_ok(
  $$select * from pgflow.start_flow('far', '{}'::jsonb, run_id => 'aaaaaaaa-0000-0000-0000-000000000001',
      idempotency_key => 'k1', concurrency_key => 'c1', deadline => 'infinity')$$,
  '22023', null,
  'deadline infinity with keys and a run_id raises invalid_parameter_value'
);

-- TEST: a deadline at 9999-01-01 00:00 UTC or later raises 22023
select throws_like(
  $$select * from pgflow.start_flow('far', '{}'::jsonb, idempotency_key => 'k2', deadline => '9999-01-01 00:00:00+00')$$,
  'start_flow: deadline % is too far away (it must be before 9999-01-01 00:00:00+00)',
  'deadline 9999-01-01 00:00:00+00 raises, saying it is too far away'
);
select throws_ok(
  $$select * from pgflow.start_flow('far', '{}'::jsonb, concurrency_key => 'c2', deadline => '9999-01-01 00:00:00+00')$$,
  '22023', null, 'deadline 9999-01-01 00:00:00+00 raises invalid_parameter_value'
);
select throws_ok(
  $$select * from pgflow.start_flow('far', '{}'::jsonb, idempotency_key => 'k3', deadline => '10240-01-01')$$,
  '22023', null, 'deadline 10240-01-01 raises invalid_parameter_value'
);

-- TEST: none of them wrote anything (no run, state, task, event, message)
select is(pgflow_tests.write_counts()::text, :'before', 'nothing was written');
select is((select count(*) from pgflow.runs where idempotency_key in ('k1', 'k2', 'k3')), 0::bigint,
  'no run holds the refused idempotency keys');

-- TEST: an hour before the limit is accepted and stored as given
select results_eq(
  $$select status, deadline, duplicate from pgflow.start_flow('far', '{}'::jsonb, idempotency_key => 'k1',
      deadline => '9998-12-31 23:00:00+00')$$,
  $$values ('started'::text, '9998-12-31 23:00:00+00'::timestamptz, false)$$,
  'deadline 9998-12-31 23:00:00+00 is accepted: a run is started with it'
);
select is((select deadline from pgflow.runs where idempotency_key = 'k1'), '9998-12-31 23:00:00+00'::timestamptz,
  'the run stores that deadline');

select * from finish();
rollback;

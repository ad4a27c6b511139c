begin;
select plan(10);
select pgflow_tests.reset_db();
set local timezone = 'UTC';

-- SETUP: a flow with a run, to show that nothing is written
select pgflow_tests.limited_flow('opts', null);
select pgflow_tests.keyed_run('opts', 'tenant-a');
select pgflow_tests.write_counts() as before \gset

-- TEST: keys are checked as _check_run_key does, under start_flow's name
select throws_ok($$select pgflow._check_start_options('', null, null)$$, '22023',
  'start_flow: idempotency_key must not be blank (got '''')', 'a blank idempotency_key raises 22023');
select throws_ok(format('select pgflow._check_start_options(null, %L, null)', repeat('c', 256)), '22023',
  'start_flow: concurrency_key must be at most 255 characters (got 256)', 'a concurrency_key of 256 characters raises 22023');
select throws_ok(format('select pgflow._check_start_options(%L, %L, null)', E' \t', ''), '22023',
  format('start_flow: idempotency_key must not be blank (got %L)', E' \t'),
  'with both keys bad, the idempotency_key is reported first');

-- TEST: a deadline not after now raises, giving the engine's time
select throws_ok($$select pgflow._check_start_options(null, null, '2000-01-01 00:00:00+00')$$, '22023',
  format('start_flow: deadline 2000-01-01 00:00:00+00 is not in the future (now is %s)', now()),
  'a past deadline raises 22023');
select throws_ok($$select pgflow._check_start_options(null, null, now())$$, '22023',
  format('start_flow: deadline %s is not in the future (now is %s)', now(), now()),
  'a deadline equal to now raises 22023');
select throws_ok($$select pgflow._check_start_options(null, null, '-infinity')$$, '22023',
  format('start_flow: deadline -infinity is not in the future (now is %s)', now()),
  '-infinity raises 22023');

-- TEST: an infinite deadline, or one from 9999-01-01 on, raises
select throws_ok($$select pgflow._check_start_options(null, null, 'infinity')$$, '22023',
  'start_flow: deadline infinity is too far away (it must be before 9999-01-01 00:00:00+00)',
  'infinity raises 22023');
select throws_ok($$select pgflow._check_start_options(null, null, '9999-01-01 00:00:00+00')$$, '22023',
  'start_flow: deadline 9999-01-01 00:00:00+00 is too far away (it must be before 9999-01-01 00:00:00+00)',
  '9999-01-01 itself raises 22023');

-- TEST: a good key does not excuse a bad deadline
select throws_ok($$select pgflow._check_start_options('order-42', 'tenant-a', '2000-01-01 00:00:00+00')$$, '22023', null,
  'valid keys with a past deadline still raise 22023');

-- TEST: none of these calls wrote anything
select is(pgflow_tests.write_counts(), :'before'::jsonb, 'no row or message was written');

select * from finish();
rollback;

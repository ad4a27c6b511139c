begin;
select plan(6);
select pgflow_tests.reset_db();

-- TEST: every option may be NULL
select is(pgflow._check_start_options(null, null, null)::text, '', 'all three NULL: passes (returns void)');

-- TEST: keys as _check_run_key accepts them
select lives_ok($$select pgflow._check_start_options('order-42', 'tenant-a', null)$$, 'two ordinary keys pass');
select lives_ok(format('select pgflow._check_start_options(%L, %L, null)', repeat('i', 255), repeat('c', 255)),
  'keys of 255 characters pass');

-- TEST: a deadline after now and before 9999-01-01 passes
select lives_ok($$select pgflow._check_start_options(null, null, now() + interval '1 second')$$,
  'a deadline one second from now passes');
select lives_ok($$select pgflow._check_start_options(null, null, '9998-12-31 23:59:59.999999+00')$$,
  'the last instant before 9999-01-01 passes');
select lives_ok($$select pgflow._check_start_options('order-42', 'tenant-a', now() + interval '1 day')$$,
  'keys and a deadline together pass');

select * from finish();
rollback;

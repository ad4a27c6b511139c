begin;
select plan(7);
select pgflow_tests.reset_db();

-- TEST: ordinary names pass, returning nothing
select is(pgflow._check_signal_name('add_wait', 'approved')::text, '', 'approved passes (returns void)');
select lives_ok($$select pgflow._check_signal_name('send_signal', 'payment.received')$$, 'payment.received passes');
select lives_ok($$select pgflow._check_signal_name('send_signal', 'a')$$, 'a one-character name passes');
select lives_ok($$select pgflow._check_signal_name('send_signal', 'order approved')$$,
  'a space inside the name is allowed (only surrounding white space is refused)');

-- TEST: the limit is 128 characters, not bytes
select lives_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', repeat('x', 128)),
  'a name of 128 characters passes');
select lives_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', repeat('é', 128)),
  'a name of 128 two-byte characters (256 bytes) passes');

-- TEST: the caller's name plays no part in the check
select lives_ok($$select pgflow._check_signal_name(null, 'approved')$$, 'a NULL caller does not make a good name fail');

select * from finish();
rollback;

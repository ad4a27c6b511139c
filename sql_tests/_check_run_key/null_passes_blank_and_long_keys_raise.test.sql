begin;
select plan(8);

-- TEST: NULL and ordinary keys pass (nothing to return, nothing raised)
select lives_ok($$select pgflow._check_run_key('start_flow', 'idempotency_key', null)$$, 'a NULL key passes');
select lives_ok($$select pgflow._check_run_key('start_flow', 'idempotency_key', 'order-42')$$, 'an ordinary key passes');
select lives_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'concurrency_key', repeat('x', 255)),
  'a 255-character key passes'
);
select lives_ok(
  $$select pgflow._check_run_key('start_flow', 'concurrency_key', ' tenant a ')$$,
  'a key with spaces around text passes (stored as given)'
);

-- TEST: an empty or whitespace-only key raises invalid_parameter_value naming caller and key
select throws_ok(
  $$select pgflow._check_run_key('start_flow', 'idempotency_key', '')$$,
  '22023', 'start_flow: idempotency_key must not be blank (got '''')',
  'an empty key raises'
);
select throws_ok(
  $$select pgflow._check_run_key('some_caller', 'concurrency_key', '  ')$$,
  '22023', 'some_caller: concurrency_key must not be blank (got ''  '')',
  'a spaces-only key raises, naming the caller and the key'
);
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'idempotency_key', E'\t\r\n'),
  '22023', null,
  'a key of tabs and line breaks raises'
);

-- TEST: a key over 255 characters raises, giving its length
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'concurrency_key', repeat('é', 256)),
  '22023', 'start_flow: concurrency_key must be at most 255 characters (got 256)',
  'a 256-character key raises (characters, not bytes)'
);

select * from finish();
rollback;

begin;
select plan(3);

-- TEST: one below the minimum raises, naming option, minimum and value
select throws_ok(
  $$select pgflow._validate_option('timeout', 0, 1)$$,
  '23514',
  'Option timeout must be >= 1 (got 0)',
  'timeout 0 with minimum 1 raises check_violation'
);
select throws_ok(
  $$select pgflow._validate_option('max_attempts', -1, 0)$$,
  '23514',
  'Option max_attempts must be >= 0 (got -1)',
  'max_attempts -1 with minimum 0 raises check_violation'
);
select throws_ok(
  $$select pgflow._validate_option('start_delay', -2147483648, 0)$$,
  '23514',
  'Option start_delay must be >= 0 (got -2147483648)',
  'the smallest int is reported as given'
);

select * from finish();
rollback;

begin;
select plan(3);

-- TEST: declared immutable, returning int
select volatility_is('pgflow', 'calculate_retry_delay', array['numeric', 'integer'], 'immutable',
  'calculate_retry_delay is immutable');
select function_returns('pgflow', 'calculate_retry_delay', array['numeric', 'integer'], 'integer',
  'calculate_retry_delay returns integer');
select is(pg_typeof(pgflow.calculate_retry_delay(1.5, 3))::text, 'integer',
  'the value is an integer, not a numeric');

select * from finish();
rollback;

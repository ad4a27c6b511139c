begin;
select plan(8);

-- TEST: upstream's utility functions and version() exist with the exact argument names, defaults and return type.
-- function_signature() lists every overload, so a stray overload fails the second check.
select has_function('pgflow', 'is_valid_slug', array['text'],
  'pgflow.is_valid_slug(text) exists');
select is(pgflow_tests.function_signature('is_valid_slug'),
  'is_valid_slug(slug text) returns boolean',
  'is_valid_slug: argument names, defaults and return type as upstream');
select has_function('pgflow', 'calculate_retry_delay', array['numeric', 'integer'],
  'pgflow.calculate_retry_delay(numeric, integer) exists');
select is(pgflow_tests.function_signature('calculate_retry_delay'),
  'calculate_retry_delay(base_delay numeric, attempts_count integer) returns integer',
  'calculate_retry_delay: argument names, defaults and return type as upstream');
select has_function('pgflow', 'is_local', array[]::text[],
  'pgflow.is_local() exists');
select is(pgflow_tests.function_signature('is_local'),
  'is_local() returns boolean',
  'is_local: argument names, defaults and return type as upstream');
select has_function('pgflow', 'version', array[]::text[],
  'pgflow.version() exists');
select is(pgflow_tests.function_signature('version'),
  'version() returns text',
  'version: argument names, defaults and return type as upstream');

select * from finish();
rollback;

begin;
select plan(3);

-- TEST: immutable (it is used in CHECK constraints)
select volatility_is('pgflow', 'is_valid_slug', array['text'], 'immutable',
  'is_valid_slug is immutable');
select function_returns('pgflow', 'is_valid_slug', array['text'], 'boolean',
  'is_valid_slug returns boolean');

-- TEST: odd input yields false, never an error
select lives_ok(
  $$ select pgflow.is_valid_slug(E'\\x00'), pgflow.is_valid_slug(repeat('é', 500)),
            pgflow.is_valid_slug('(?:[a-z]+)+$'), pgflow.is_valid_slug('%') $$,
  'is_valid_slug does not raise on odd input');

select * from finish();
rollback;

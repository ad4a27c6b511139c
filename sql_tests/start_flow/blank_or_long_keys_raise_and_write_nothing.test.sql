begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: a limited flow (a concurrency key would count) with one keyed run already started
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck');
select pgflow_tests.write_counts()::text as before \gset

-- TEST: a blank, whitespace-only or 256-character idempotency_key raises 22023
select throws_ok(
  $$select * from pgflow.start_flow('lim', '{}', idempotency_key => '')$$,
  '22023', 'start_flow: idempotency_key must not be blank (got '''')',
  'an empty idempotency_key raises invalid_parameter_value'
);
select throws_ok(
  $$select * from pgflow.start_flow('lim', '{}', idempotency_key => '   ')$$,
  '22023', 'start_flow: idempotency_key must not be blank (got ''   '')',
  'a spaces-only idempotency_key raises invalid_parameter_value'
);
select throws_ok(
  format('select * from pgflow.start_flow(%L, %L, idempotency_key => %L)', 'lim', '{}', E'\t\n '),
  '22023', null,
  'a tab/newline-only idempotency_key raises invalid_parameter_value'
);
select throws_ok(
  format('select * from pgflow.start_flow(%L, %L, idempotency_key => %L)', 'lim', '{}', repeat('k', 256)),
  '22023', 'start_flow: idempotency_key must be at most 255 characters (got 256)',
  'a 256-character idempotency_key raises invalid_parameter_value'
);

-- TEST: the same rules for concurrency_key
select throws_ok(
  $$select * from pgflow.start_flow('lim', '{}', concurrency_key => '')$$,
  '22023', 'start_flow: concurrency_key must not be blank (got '''')',
  'an empty concurrency_key raises invalid_parameter_value'
);
select throws_ok(
  format('select * from pgflow.start_flow(%L, %L, concurrency_key => %L)', 'lim', '{}', E' \t '),
  '22023', null,
  'a whitespace-only concurrency_key raises invalid_parameter_value'
);
select throws_ok(
  format('select * from pgflow.start_flow(%L, %L, concurrency_key => %L)', 'lim', '{}', repeat('c', 256)),
  '22023', 'start_flow: concurrency_key must be at most 255 characters (got 256)',
  'a 256-character concurrency_key raises invalid_parameter_value'
);
-- a good idempotency key does not excuse a bad concurrency key (nor the other way round)
select throws_ok(
  $$select * from pgflow.start_flow('lim', '{}', idempotency_key => 'good', concurrency_key => ' ')$$,
  '22023', 'start_flow: concurrency_key must not be blank (got '' '')',
  'a good idempotency_key with a blank concurrency_key raises'
);

-- TEST: nothing was written by any of them
select is(pgflow_tests.write_counts()::text, :'before', 'the rejected starts wrote nothing');

-- TEST: 255 characters is allowed for both keys (stored as given)
select results_eq(
  format($$select length(idempotency_key), length(concurrency_key), duplicate
           from pgflow.start_flow('lim', '{}', idempotency_key => %L, concurrency_key => %L)$$,
         repeat('k', 255), repeat('c', 255)),
  $$values (255, 255, false)$$,
  'keys of 255 characters start a run'
);
select is(
  (select count(*)::int from pgflow.runs where idempotency_key = repeat('k', 255)),
  1,
  'the run with the 255-character keys is stored'
);

select * from finish();
rollback;

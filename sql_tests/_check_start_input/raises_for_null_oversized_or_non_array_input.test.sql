begin;
select plan(7);

-- TEST: any JSON value passes a flow without root map; an array passes a root map
select lives_ok($$select pgflow._check_start_input('f', '"text"', null)$$, 'a JSON string passes without root map');
select lives_ok($$select pgflow._check_start_input('f', 'null', null)$$, 'JSON null passes without root map');
select lives_ok($$select pgflow._check_start_input('f', '[]', 'items')$$, 'an empty array passes a root map');

-- TEST: a NULL input raises not_null_violation, worded for the kind of flow
select throws_ok(
  $$select pgflow._check_start_input('f', null, null)$$,
  '23502', 'Flow ''f'' cannot start: input is NULL',
  'NULL input without root map raises 23502'
);
select throws_ok(
  $$select pgflow._check_start_input('f', null, 'items')$$,
  '23502', 'Flow ''f'' has root map steps but input is NULL',
  'NULL input with a root map raises 23502'
);

-- TEST: a root map needs an array
select throws_ok(
  $$select pgflow._check_start_input('f', '{"a": 1}', 'items')$$,
  '22023', 'Flow ''f'' has root map steps but input is not an array (got object)',
  'an object for a root map raises 22023'
);

-- TEST: an input over pgflow.max_payload_bytes raises program_limit_exceeded
select set_config('pgflow.max_payload_bytes', '1kB', true);
select throws_ok(
  format('select pgflow._check_start_input(%L, %L, null)', 'f', to_jsonb(repeat('x', 2000))),
  '54000', null,
  'an input over the configured limit raises 54000'
);

select * from finish();
rollback;

begin;
select plan(2);

-- SETUP: settings that are not a positive size
select set_config('pgflow.max_payload_bytes', 'lots', true);

-- TEST: the error of _max_payload_bytes comes through, even for a small or NULL payload
select throws_ok(
  $$select pgflow._payload_size_error('{}'::jsonb, 'Test payload')$$,
  '22023',
  'Invalid value ''lots'' for setting pgflow.max_payload_bytes',
  'an unparsable setting raises invalid_parameter_value'
);
select set_config('pgflow.max_payload_bytes', '0', true);
select throws_ok(
  $$select pgflow._payload_size_error(null, 'Test payload')$$,
  '22023',
  'Invalid value ''0'' for setting pgflow.max_payload_bytes',
  'a zero limit raises invalid_parameter_value'
);

select * from finish();
rollback;

begin;
select plan(6);

-- SETUP: a 1 kB limit; a JSON string of n characters takes n + 12 bytes as jsonb
select set_config('pgflow.max_payload_bytes', '1kB', true);

-- TEST: up to the limit: NULL
select is(pgflow._payload_size_error(to_jsonb(repeat('x', 1012)), 'Test payload'), null,
  'a payload of exactly the limit (1024 bytes) gives NULL');
select is(pgflow._payload_size_error(null, 'Test payload'), null, 'a NULL payload gives NULL');

-- TEST: over the limit: the sentence with both sizes and the setting name
select is(
  pgflow._payload_size_error(to_jsonb(repeat('x', 1013)), 'Test payload'),
  'Test payload is 1025 bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)',
  'one byte over the limit gives the error text'
);
select is(
  pgflow._payload_size_error(to_jsonb(repeat('x', 1013)), 'Output of task first[0]'),
  'Output of task first[0] is 1025 bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)',
  'payload_name starts the sentence'
);

-- TEST: without the setting the limit is 16 MiB
select set_config('pgflow.max_payload_bytes', '', true);
select is(pgflow._payload_size_error(to_jsonb(repeat('x', 16777216 - 12)), 'Big'), null,
  'exactly 16 MiB gives NULL by default');
select is(
  pgflow._payload_size_error(to_jsonb(repeat('x', 16777216 - 11)), 'Big'),
  'Big is 16777217 bytes, over the limit of 16777216 bytes (setting pgflow.max_payload_bytes)',
  'one byte over 16 MiB gives the error text by default'
);

select * from finish();
rollback;

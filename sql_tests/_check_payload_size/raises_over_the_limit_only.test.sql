begin;
select plan(6);

-- SETUP: a 1 kB limit; a JSON string of n characters takes n + 12 bytes as jsonb
select set_config('pgflow.max_payload_bytes', '1kB', true);

-- TEST: the size is pg_column_size of the jsonb value
select is(pg_column_size(to_jsonb(repeat('x', 1012))), 1024, 'a 1012-character string is 1024 bytes of jsonb');

-- TEST: up to the limit passes, one byte more raises program_limit_exceeded
select lives_ok($$ select pgflow._check_payload_size(to_jsonb(repeat('x', 1012)), 'Test payload') $$,
  'a payload of exactly the limit passes');
select throws_ok($$ select pgflow._check_payload_size(to_jsonb(repeat('x', 1013)), 'Test payload') $$,
  '54000',
  'Test payload is 1025 bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)',
  'one byte over the limit raises program_limit_exceeded with both sizes and the setting name');
select lives_ok($$ select pgflow._check_payload_size(null, 'Test payload') $$, 'NULL passes');

-- TEST: the default limit (16 MiB) applies when the setting is reset
select set_config('pgflow.max_payload_bytes', '', true);
select lives_ok($$ select pgflow._check_payload_size(to_jsonb(repeat('x', 16777216 - 12)), 'Big') $$,
  'a payload of exactly 16 MiB passes by default');
select throws_ok($$ select pgflow._check_payload_size(to_jsonb(repeat('x', 16777216 - 11)), 'Big') $$,
  '54000', 'Big is 16777217 bytes, over the limit of 16777216 bytes (setting pgflow.max_payload_bytes)',
  'one byte over 16 MiB raises by default');

select * from finish();
rollback;

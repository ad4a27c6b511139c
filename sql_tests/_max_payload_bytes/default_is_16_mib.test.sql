begin;
select plan(3);

-- TEST: without the setting the limit is 16 MiB
select is(pgflow._max_payload_bytes(), 16777216::bigint,
  'the limit is 16777216 bytes (16 MiB) when pgflow.max_payload_bytes is not set');

-- TEST: an empty value (what a RESET leaves behind in a session) means the default too
select set_config('pgflow.max_payload_bytes', '', true);
select is(pgflow._max_payload_bytes(), 16777216::bigint, 'an empty setting means the default');
select set_config('pgflow.max_payload_bytes', '   ', true);
select is(pgflow._max_payload_bytes(), 16777216::bigint, 'a blank setting means the default');

select * from finish();
rollback;

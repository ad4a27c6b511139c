begin;
select plan(6);

-- TEST: a plain number is bytes; units are those of pg_size_bytes, any case
select set_config('pgflow.max_payload_bytes', '1024', true);
select is(pgflow._max_payload_bytes(), 1024::bigint, '1024 means 1024 bytes');
select set_config('pgflow.max_payload_bytes', '1kB', true);
select is(pgflow._max_payload_bytes(), 1024::bigint, '1kB means 1024 bytes');
select set_config('pgflow.max_payload_bytes', ' 2 MB ', true);
select is(pgflow._max_payload_bytes(), 2097152::bigint, 'spaces are allowed around and before the unit');
select set_config('pgflow.max_payload_bytes', '64mb', true);
select is(pgflow._max_payload_bytes(), 67108864::bigint, 'units are case-insensitive');
select set_config('pgflow.max_payload_bytes', '1.5GB', true);
select is(pgflow._max_payload_bytes(), 1610612736::bigint, 'a fractional size is allowed');
select set_config('pgflow.max_payload_bytes', '10 bytes', true);
select is(pgflow._max_payload_bytes(), 10::bigint, 'the unit bytes is allowed');

select * from finish();
rollback;

begin;
select plan(8);

-- TEST: zero, negative, non-numeric and unknown units raise invalid_parameter_value naming
-- the setting and the value
create function pg_temp.limit_with(setting text)
returns bigint
language plpgsql
as $$
begin
  perform set_config('pgflow.max_payload_bytes', setting, true);
  return pgflow._max_payload_bytes();
end;
$$;

select throws_ok($$ select pg_temp.limit_with('0') $$, '22023',
  'Invalid value ''0'' for setting pgflow.max_payload_bytes', 'zero is rejected');
select throws_ok($$ select pg_temp.limit_with('-1') $$, '22023',
  'Invalid value ''-1'' for setting pgflow.max_payload_bytes', 'a negative size is rejected');
select throws_ok($$ select pg_temp.limit_with('0.4') $$, '22023',
  'Invalid value ''0.4'' for setting pgflow.max_payload_bytes', 'a size below one byte is rejected');
select throws_ok($$ select pg_temp.limit_with('abc') $$, '22023',
  'Invalid value ''abc'' for setting pgflow.max_payload_bytes', 'text is rejected');
select throws_ok($$ select pg_temp.limit_with('16 XB') $$, '22023',
  'Invalid value ''16 XB'' for setting pgflow.max_payload_bytes', 'an unknown unit is rejected');
select throws_ok($$ select pg_temp.limit_with('1e6') $$, '22023',
  'Invalid value ''1e6'' for setting pgflow.max_payload_bytes', 'exponent notation is rejected');
select throws_ok($$ select pg_temp.limit_with('99999999999999999999') $$, '22023',
  'Invalid value ''99999999999999999999'' for setting pgflow.max_payload_bytes',
  'a number too large for bigint is rejected with the same message');
select throws_ok($$ select pg_temp.limit_with('1; drop table pgflow.runs') $$, '22023',
  'Invalid value ''1; drop table pgflow.runs'' for setting pgflow.max_payload_bytes',
  'a hostile value is rejected, not executed');

select * from finish();
rollback;

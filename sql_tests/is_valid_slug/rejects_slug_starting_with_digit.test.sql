begin;
select plan(3);

-- TEST: the first character may not be a digit
select is(pgflow.is_valid_slug('1abc'), false, '1abc (leading digit) is invalid');
select is(pgflow.is_valid_slug('9'), false, 'a lone digit is invalid');
select is(pgflow.is_valid_slug('0_step'), false, '0_step (leading digit) is invalid');

select * from finish();
rollback;

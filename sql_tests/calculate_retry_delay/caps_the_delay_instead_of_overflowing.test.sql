begin;
select plan(4);

-- TEST: a delay past the largest int is capped there (upstream raises numeric_value_out_of_range)
select is(pgflow.calculate_retry_delay(60, 25), 2013265920, 'base 60, after 25 attempts: still exact');
select is(pgflow.calculate_retry_delay(60, 26), 2147483647, 'base 60, after 26 attempts: capped');
select is(pgflow.calculate_retry_delay(1, 2147483647), 2147483647, 'any number of attempts: capped');
select is(pgflow.calculate_retry_delay(0, 2147483647), 0, 'a zero base delay stays zero');

select * from finish();
rollback;

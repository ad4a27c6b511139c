begin;
select plan(4);

-- TEST: fractional base delays are floored after the multiplication, not before
select is(pgflow.calculate_retry_delay(1.5, 1), 3, '1.5 * 2 = 3');
select is(pgflow.calculate_retry_delay(0.3, 2), 1, 'floor(0.3 * 4 = 1.2) = 1');
select is(pgflow.calculate_retry_delay(2.7, 0), 2, 'floor(2.7 * 1) = 2');
select is(pgflow.calculate_retry_delay(0.1, 1), 0, 'floor(0.1 * 2 = 0.2) = 0');

select * from finish();
rollback;

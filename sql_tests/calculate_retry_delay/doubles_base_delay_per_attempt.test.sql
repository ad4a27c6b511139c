begin;
select plan(6);

-- TEST: floor(base_delay * 2^attempts_count); the first retry (attempts_count 1) waits 2 x base
select is(pgflow.calculate_retry_delay(5, 1), 10, 'base 5, after attempt 1: 10 seconds');
select is(pgflow.calculate_retry_delay(5, 2), 20, 'base 5, after attempt 2: 20 seconds');
select is(pgflow.calculate_retry_delay(5, 3), 40, 'base 5, after attempt 3: 40 seconds');
select is(pgflow.calculate_retry_delay(1, 0), 1, 'base 1, attempts 0: 1 second (2^0 = 1)');
select is(pgflow.calculate_retry_delay(2, 4), 32, 'base 2, attempts 4: 32 seconds');
select is(pgflow.calculate_retry_delay(1, 20), 1048576, 'base 1, attempts 20: 2^20 seconds');

select * from finish();
rollback;

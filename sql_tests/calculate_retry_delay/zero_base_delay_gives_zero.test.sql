begin;
select plan(2);

-- TEST: base_delay 0 (allowed by the flows/steps checks) means immediate retries
select is(pgflow.calculate_retry_delay(0, 1), 0, 'base 0, attempt 1: 0 seconds');
select is(pgflow.calculate_retry_delay(0, 10), 0, 'base 0, attempt 10: 0 seconds');

select * from finish();
rollback;

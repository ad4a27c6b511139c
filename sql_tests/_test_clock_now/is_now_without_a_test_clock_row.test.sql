begin;
select plan(3);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- TEST: no row in pgflow.test_clock: no offset, the transaction's now()
select is((select count(*)::int from pgflow.test_clock), 0, 'no test clock row');
select is(pgflow._test_clock_now(), now(), '_test_clock_now() is now()');
select is(pgflow._now(), pgflow._test_clock_now(), '_now() reads it while the test clock is on');

select * from finish();
rollback;

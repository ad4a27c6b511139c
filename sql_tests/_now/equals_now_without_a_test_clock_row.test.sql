begin;
select plan(3);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- TEST: with no test clock row (production), the engine's time is the transaction's now()
select is((select count(*)::int from pgflow.test_clock), 0, 'no test clock row');
select is(pgflow._now(), now(), '_now() is now()');
select is(pgflow._now(), pgflow._now(), 'stable within the transaction');

select * from finish();
rollback;

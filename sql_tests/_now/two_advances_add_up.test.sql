begin;
select plan(3);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- TEST: two advances add up (one row, the offsets summed), and advance_clock(0) moves nothing
select pgflow.advance_clock(60);
select pgflow.advance_clock(3600);
select is(pgflow._now(), now() + interval '3660 seconds', '60 s then 3600 s: now() + 3660 s');
select is((select count(*)::int from pgflow.test_clock), 1, 'still one test clock row');
select pgflow.advance_clock(0);
select is(pgflow._now(), now() + interval '3660 seconds', 'advance_clock(0) leaves it where it was');

select * from finish();
rollback;

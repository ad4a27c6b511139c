begin;
select plan(4);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: the engine's time before the clock moves
select pgflow._now() as before \gset

-- TEST: after advance_clock(90.5) the engine's time is now() + 90.5 s, and no longer now()
select pgflow.advance_clock(90.5);
select is(pgflow._now(), now() + interval '90.5 seconds', '_now() is now() + the offset');
select isnt(pgflow._now(), now(), 'it is no longer now()');
select is(pgflow._now() - :'before'::timestamptz, interval '90.5 seconds', 'moved by exactly the amount');
select is((select time_offset from pgflow.test_clock), interval '90.5 seconds', 'the offset is stored');

select * from finish();
rollback;

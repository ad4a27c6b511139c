begin;
select plan(3);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- TEST: advance_clock returns the engine's time after the move
select is(pgflow.advance_clock(120), now() + interval '120 seconds', 'returns now() + 120 s');
select is(pgflow.advance_clock(0.5), now() + interval '120.5 seconds', 'then now() + 120.5 s');
select is(pgflow.advance_clock(0), pgflow._now(), 'what pgflow._now() reads');

select * from finish();
rollback;

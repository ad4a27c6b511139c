begin;
select plan(4);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- TEST: the offset stored by advance_clock is added to now()
select pgflow.advance_clock(90.5);
select is(pgflow._test_clock_now(), now() + interval '90.5 seconds', 'now() + 90.5 s after advance_clock(90.5)');

-- TEST: it reads the row as it is now, whoever wrote it
update pgflow.test_clock set time_offset = interval '2 days 3 hours';
select is(pgflow._test_clock_now(), now() + interval '2 days 3 hours', 'now() + the offset in the row');
select is(pgflow._now(), now() + interval '2 days 3 hours', '_now() gives the same');

-- TEST: it does not look at the setting itself (_now() does): with the test clock off it
-- still adds the offset, while _now() is now()
set local pgflow.test_clock = off;
select results_eq(
  $$ select pgflow._test_clock_now() = now() + interval '2 days 3 hours', pgflow._now() = now() $$,
  $$ values (true, true) $$,
  'test clock off: _test_clock_now() still adds the offset, _now() is now()'
);

select * from finish();
rollback;

begin;
select plan(4);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: the clock moved by an hour
select pgflow.advance_clock(3600);

-- TEST: the worker, client and operator roles may call it (they read pgflow.test_clock)
select is(pgflow_tests.sqlstate_as('pgflow_worker', 'select pgflow._test_clock_now()'), '00000',
  'pgflow_worker may call it');
select is(pgflow_tests.sqlstate_as('pgflow_client', 'select pgflow._test_clock_now()'), '00000',
  'pgflow_client may call it');
select is(pgflow_tests.sqlstate_as('pgflow_operator', 'select pgflow._test_clock_now()'), '00000',
  'pgflow_operator may call it');

-- TEST: as one of them it gives the moved time
create temp table seen_as_worker (t timestamptz);
grant insert on seen_as_worker to pgflow_worker;
select pgflow_tests.sqlstate_as('pgflow_worker', 'insert into seen_as_worker select pgflow._test_clock_now()');
select is((select t from seen_as_worker), now() + interval '1 hour', 'as pgflow_worker: now() + 1 hour');

select * from finish();
rollback;

begin;
select plan(9);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "timed": run_timeout 600 s; the clock moved 1000 s before the runs start
select pgflow.create_flow('timed', max_attempts => 1, run_timeout => 600);
select pgflow.add_step('timed', 'only');
select pgflow.advance_clock(1000);
select run_id as by_timeout from pgflow.start_flow('timed', '{}'::jsonb) \gset
select run_id as by_argument
from pgflow.start_flow('timed', '{}'::jsonb, deadline => now() + interval '1300 seconds') \gset

-- TEST: the run_timeout counts from the moved clock; a deadline passed as an argument must
-- be after the engine's time, not the database's
select is((select deadline from pgflow.runs where run_id = :'by_timeout'), now() + interval '1600 seconds',
  'deadline: the engine''s time (now() + 1000 s) + 600 s');
select is((select started_at from pgflow.runs where run_id = :'by_timeout'), now() + interval '1000 seconds',
  'started_at on the moved clock');
select throws_ok(
  $$select * from pgflow.start_flow('timed', '{}'::jsonb, deadline => now() + interval '900 seconds')$$,
  '22023', null, 'a deadline in the database''s future but the engine''s past is refused');

-- TEST: the tick expires neither before its deadline
select pgflow.advance_clock(299);
select results_eq($$select expired_runs from pgflow.tick()$$, $$values (0)$$, 'nothing expired 299 s later');

-- TEST: the deadline of the argument passes first, then the run_timeout's
select pgflow.advance_clock(1);
select results_eq($$select expired_runs from pgflow.tick()$$, $$values (1)$$, 'one run expired 300 s later');
select results_eq(
  format($$select status, expired_at from pgflow.runs where run_id = %L$$, :'by_argument'),
  $$values ('expired'::text, now() + interval '1300 seconds')$$, 'the run with a deadline argument expired at it');
select is((select status from pgflow.runs where run_id = :'by_timeout'), 'started', 'the other one still runs');
select pgflow.advance_clock(300);
select results_eq($$select expired_runs from pgflow.tick()$$, $$values (1)$$, 'the other expires 300 s later');
select results_eq(
  format($$select status, expired_at from pgflow.runs where run_id = %L$$, :'by_timeout'),
  $$values ('expired'::text, now() + interval '1600 seconds')$$, 'expired at now() + 1600 s');

select * from finish();
rollback;

begin;
select plan(6);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "one_at_a_time": concurrency_limit 1, on_limit queue; run A holds key k, run B
-- (deadline in 120 s) is queued behind it
select pgflow.create_flow('one_at_a_time', max_attempts => 1, concurrency_limit => 1, on_limit => 'queue');
select pgflow.add_step('one_at_a_time', 'only');
select run_id as run_a from pgflow.start_flow('one_at_a_time', '{}'::jsonb, concurrency_key => 'k') \gset
select run_id as run_b from pgflow.start_flow('one_at_a_time', '{}'::jsonb, concurrency_key => 'k',
  deadline => now() + interval '120 seconds') \gset
select pgflow.advance_clock(60);
select run_id as run_c from pgflow.start_flow('one_at_a_time', '{}'::jsonb, concurrency_key => 'k') \gset

-- TEST: B and C queue; C's queued_at is on the moved clock
select results_eq(
  format($$select run_id, status from pgflow.runs where run_id in (%L, %L) order by queue_seq$$, :'run_b', :'run_c'),
  format($$values (%L::uuid, 'queued'::text), (%L::uuid, 'queued'::text)$$, :'run_b', :'run_c'),
  'B and C are queued');
select is((select queued_at from pgflow.runs where run_id = :'run_c'), now() + interval '60 seconds',
  'C was queued at now() + 60 s');

-- TEST: B is not expired before its deadline
select pgflow.advance_clock(59);
select results_eq($$select expired_runs from pgflow.tick()$$, $$values (0)$$, 'not expired 119 s later');

-- TEST: past its deadline the tick expires B on the moved clock; when A ends, C (not B)
-- takes the slot
select pgflow.advance_clock(1);
select results_eq($$select expired_runs from pgflow.tick()$$, $$values (1)$$, 'expired 120 s later');
select results_eq(
  format($$select status, expired_at from pgflow.runs where run_id = %L$$, :'run_b'),
  $$values ('expired'::text, now() + interval '120 seconds')$$, 'B expired at now() + 120 s');
select count(*) from pgflow.cancel_run(:'run_a', 'alice', null);
select results_eq(
  format($$select status, started_at from pgflow.runs where run_id = %L$$, :'run_c'),
  $$values ('started'::text, now() + interval '120 seconds')$$, 'C started at now() + 120 s');

select * from finish();
rollback;

begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: a flow with run_timeout (so an error cannot fall back to it silently)
select pgflow.create_flow('timed', run_timeout => 60);
select pgflow.add_step('timed', 'work');
select pgflow_tests.row_counts() as counts_before \gset

-- TEST: a deadline equal to now (transaction time) raises 22023
select throws_ok(
  $$select * from pgflow.start_flow('timed', '{}'::jsonb, deadline => now())$$,
  '22023', null, 'a deadline equal to now raises invalid_parameter_value');

-- TEST: a deadline in the past raises 22023, with a message naming it
select throws_like(
  $$select * from pgflow.start_flow('timed', '{}'::jsonb, deadline => now() - interval '1 second')$$,
  'start_flow: deadline % is not in the future (now is %)', 'a past deadline raises, naming the deadline');
select throws_ok(
  $$select * from pgflow.start_flow('timed', '{}'::jsonb, deadline => now() - interval '1 second')$$,
  '22023', null, 'a past deadline raises invalid_parameter_value');

-- TEST: also with a run_id, an idempotency key and a concurrency key: nothing is written
select throws_ok(
  $$select * from pgflow.start_flow('timed', '{}'::jsonb, run_id => 'aaaaaaaa-0000-0000-0000-000000000001',
      idempotency_key => 'k1', concurrency_key => 'c1', deadline => now() - interval '1 day')$$,
  '22023', null, 'a past deadline with keys raises invalid_parameter_value');
select is(pgflow_tests.row_counts(), :'counts_before'::jsonb, 'no run, step state or task was written');
select is(pgflow_tests.queue_count('timed'), 0::bigint, 'no message was sent');
select is((select count(*) from pgflow.run_events), 0::bigint, 'no event was recorded');

-- TEST: the idempotency key was not taken: a later valid start with it creates the run
select is((select duplicate from pgflow.start_flow('timed', '{}'::jsonb, idempotency_key => 'k1',
                                                   deadline => now() + interval '1 minute')),
  false, 'the idempotency key of the refused start is still free');

-- TEST: a repeat of that start whose deadline has passed since (a client retrying with the
-- same absolute deadline) gets the run back, with nothing written
select pgflow_tests.row_counts() as counts_after_first \gset
select results_eq(
  $$select duplicate, idempotency_key from pgflow.start_flow('timed', '{}'::jsonb, idempotency_key => 'k1',
      deadline => now() - interval '1 hour')$$,
  $$values (true, 'k1'::text)$$,
  'a repeat with a passed deadline returns the first run as a duplicate');
select is(pgflow_tests.row_counts(), :'counts_after_first'::jsonb, 'and writes nothing');

select * from finish();
rollback;

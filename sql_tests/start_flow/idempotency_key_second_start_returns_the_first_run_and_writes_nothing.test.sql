begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: a started run with key order-1
select pgflow_tests.setup_flow('sequential');
select run_id as first_run
from pgflow.start_flow('sequential', '{"n": 1}'::jsonb, idempotency_key => 'order-1') \gset
select pgflow_tests.write_counts()::text as before \gset

-- TEST: a second start with the same key, another input and another run_id returns the first
-- run as stored, with duplicate true
create temp table second_start as
select * from pgflow.start_flow('sequential', '{"n": 2}'::jsonb, '00000000-0000-0000-0000-0000000000aa',
                                idempotency_key => 'order-1');
select results_eq(
  $$select * from second_start$$,
  $$select r.*, true from pgflow.runs as r$$,
  'the second start returns the stored run (every column), then duplicate true'
);
select is((select run_id from second_start), :'first_run'::uuid, 'it is the first run');
select is(
  (select input from pgflow.runs where run_id = :'first_run'),
  '{"n": 1}'::jsonb,
  'the run keeps the first input'
);
select is(
  (select count(*)::int from pgflow.runs where run_id = '00000000-0000-0000-0000-0000000000aa'),
  0,
  'no run has the run_id the duplicate passed'
);

-- TEST: nothing was written (runs, step states, tasks, messages, events)
select is(pgflow_tests.write_counts()::text, :'before', 'the duplicate start wrote nothing');

-- TEST: other trailing arguments (a concurrency key, a deadline) do not matter either
select results_eq(
  $$select run_id, concurrency_key, deadline, duplicate
    from pgflow.start_flow('sequential', '{"n": 3}'::jsonb, idempotency_key => 'order-1',
                           concurrency_key => 'tenant-a', deadline => now() + interval '1 hour')$$,
  format($$values (%L::uuid, null::text, null::timestamptz, true)$$, :'first_run'),
  'a duplicate with a concurrency key and a deadline returns the first run as it is'
);
select is(pgflow_tests.write_counts()::text, :'before', 'that duplicate wrote nothing either');

select * from finish();
rollback;

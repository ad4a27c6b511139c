begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: a flow without run_timeout and one with run_timeout 60 s
select pgflow.create_flow('plain');
select pgflow.add_step('plain', 'work');
select pgflow.create_flow('timed', run_timeout => 60);
select pgflow.add_step('timed', 'work');

-- TEST: an explicit deadline is stored as given, and returned by start_flow
select run_id as given, deadline as returned_deadline
from pgflow.start_flow('plain', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select is(:'returned_deadline'::timestamptz, now() + interval '1 hour', 'start_flow returns the deadline given');
select is((select deadline from pgflow.runs where run_id = :'given'), now() + interval '1 hour',
  'the deadline given is stored');

-- TEST: run:started records the deadline
select is((select details ->> 'deadline' from pgflow.run_events where run_id = :'given' and event = 'run:started'),
  (select to_jsonb(now() + interval '1 hour') ->> 0),
  'run:started carries the deadline in its details');

-- TEST: no deadline and no run_timeout: no deadline
select run_id as none from pgflow.start_flow('plain', '{}'::jsonb) \gset
select is((select deadline from pgflow.runs where run_id = :'none'), null::timestamptz,
  'a run of a flow without run_timeout has no deadline');

-- TEST: run_timeout 60 and no deadline: deadline = started_at + 60 s exactly
select run_id as defaulted from pgflow.start_flow('timed', '{}'::jsonb) \gset
select is((select deadline - started_at from pgflow.runs where run_id = :'defaulted'), interval '60 seconds',
  'run_timeout 60: deadline is started_at + 60 seconds');
select is((select deadline from pgflow.runs where run_id = :'defaulted'), now() + interval '60 seconds',
  'run_timeout 60: deadline is now + 60 seconds');

-- TEST: an explicit deadline wins over run_timeout (later or earlier than it)
select run_id as later from pgflow.start_flow('timed', '{}'::jsonb, deadline => now() + interval '2 hours') \gset
select run_id as sooner from pgflow.start_flow('timed', '{}'::jsonb, deadline => now() + interval '5 seconds') \gset
select is((select deadline from pgflow.runs where run_id = :'later'), now() + interval '2 hours',
  'an explicit deadline later than run_timeout wins');
select is((select deadline from pgflow.runs where run_id = :'sooner'), now() + interval '5 seconds',
  'an explicit deadline sooner than run_timeout wins');

-- TEST: a run created queued (over its concurrency limit) gets its deadline when created,
-- and keeps it when it starts later
select pgflow.create_flow('timed_lim', concurrency_limit => 1, run_timeout => 60);
select pgflow.add_step('timed_lim', 'work');
select run_id as holder from pgflow.start_flow('timed_lim', '{}'::jsonb, concurrency_key => 'k') \gset
select run_id as waiter from pgflow.start_flow('timed_lim', '{}'::jsonb, concurrency_key => 'k') \gset
select results_eq(format($$select status, deadline - queued_at from pgflow.runs where run_id = %L$$, :'waiter'),
  $$values ('queued'::text, interval '60 seconds')$$, 'a queued run: deadline = queued_at + 60 seconds');
select pgflow.cancel_run(:'holder', 'ops', 'make room');
select results_eq(format($$select status, deadline from pgflow.runs where run_id = %L$$, :'waiter'),
  $$values ('started'::text, now() + interval '60 seconds')$$, 'once started it keeps that deadline');

select * from finish();
rollback;

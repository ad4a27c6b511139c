begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow "rw": zz (waits for "go" 600 s) and nap (timer 120 s) are roots; later depends
-- on zz (waits for "later", no timeout); plain has no wait.
select pgflow.create_flow('rw', max_attempts => 1);
select pgflow.add_step('rw', 'zz');
select pgflow.add_wait('rw', 'zz', 'go', timeout => 600, runs_handler => false);
select pgflow.add_step('rw', 'nap');
select pgflow.add_timer('rw', 'nap', seconds => 120);
select pgflow.add_step('rw', 'later', array['zz']);
select pgflow.add_wait('rw', 'later', 'later');
select pgflow.add_step('rw', 'plain');
select run_id from pgflow.start_flow('rw', '{}'::jsonb) \gset
-- The run started 100 s ago (moved back in time: now() is fixed in a transaction).
update pgflow.wait_states set waiting_since = waiting_since - interval '100 seconds',
  deadline = deadline - interval '100 seconds' where run_id = :'run_id';

-- TEST: one row per step that waits, step_index order; open waits count down on the DB clock
select results_eq(
  format($$select step_slug, kind, signal_name, deadline - waiting_since, resolved_at, outcome,
                  waited_seconds, seconds_left
           from pgflow.get_run_waits(%L)$$, :'run_id'),
  $$values ('zz'::text, 'signal'::text, 'go'::text, interval '600 seconds', null::timestamptz, null::text,
            100::double precision, 500::double precision),
           ('nap', 'timer', null, interval '120 seconds', null, null, 100, 20)$$,
  'zz: signal go, 100 s waited, 500 s left; nap: timer, 100 s waited, 20 s left');

-- TEST: a resolved wait: outcome and resolved_at, waited until resolved, no seconds_left
select count(*) from pgflow.send_signal(:'run_id', 'go', '{}');
select results_eq(
  format($$select step_slug, outcome, resolved_at = now(), waited_seconds, seconds_left
           from pgflow.get_run_waits(%L) where step_slug = 'zz'$$, :'run_id'),
  $$values ('zz'::text, 'signal'::text, true, 100::double precision, null::double precision)$$,
  'zz: outcome signal, resolved now, waited 100 s, no seconds_left');

-- TEST: a wait with no timeout: deadline NULL, seconds_left NULL
select results_eq(
  format($$select step_slug, signal_name, deadline, outcome, waited_seconds, seconds_left
           from pgflow.get_run_waits(%L) where step_slug = 'later'$$, :'run_id'),
  $$values ('later'::text, 'later'::text, null::timestamptz, null::text, 0::double precision, null::double precision)$$,
  'later: no deadline, no seconds_left, waited 0 s so far');
select is((select count(*)::int from pgflow.get_run_waits(:'run_id')), 3, 'plain (no wait) has no row');

-- TEST: a deadline passed but not yet fired: negative seconds_left
update pgflow.wait_states set deadline = now() - interval '5 seconds' where run_id = :'run_id' and step_slug = 'nap';
select results_eq(
  format($$select outcome, seconds_left from pgflow.get_run_waits(%L) where step_slug = 'nap'$$, :'run_id'),
  $$values (null::text, -5::double precision)$$, 'nap: 5 s overdue, not fired yet');
select count(*) from pgflow.tick();
select results_eq(
  format($$select step_slug, outcome from pgflow.get_run_waits(%L)$$, :'run_id'),
  $$values ('zz'::text, 'signal'::text), ('nap', 'due'), ('later', null)$$, 'after a tick nap is due');

-- TEST: an unknown run has no rows
select is((select count(*)::int from pgflow.get_run_waits('00000000-0000-0000-0000-000000000000')), 0,
  'no rows for an unknown run');

select * from finish();
rollback;

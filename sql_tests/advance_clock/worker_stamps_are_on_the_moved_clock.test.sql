begin;
select plan(7);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: the clock moved 100 s
select pgflow.advance_clock(100);

-- TEST: register_worker stamps started_at and last_heartbeat_at on the moved clock
select pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'my_flow', 'my_fn');
select results_eq(
  $$select started_at, last_heartbeat_at from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'$$,
  $$values (now() + interval '100 seconds', now() + interval '100 seconds')$$,
  'started_at and last_heartbeat_at: now() + 100 s');

-- TEST: worker_heartbeat moves last_heartbeat_at with the clock
select pgflow.advance_clock(50);
select is(pgflow.worker_heartbeat('22222222-2222-2222-2222-222222222222'), false, 'the worker may go on');
select results_eq(
  $$select started_at, last_heartbeat_at from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'$$,
  $$values (now() + interval '100 seconds', now() + interval '150 seconds')$$,
  'last_heartbeat_at: now() + 150 s, started_at unchanged');

-- TEST: deprecate_worker and mark_worker_stopped stamp the moved clock
select pgflow.advance_clock(10);
select pgflow.deprecate_worker('22222222-2222-2222-2222-222222222222');
select pgflow.advance_clock(5);
select pgflow.mark_worker_stopped('22222222-2222-2222-2222-222222222222');
select results_eq(
  $$select deprecated_at, stopped_at from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'$$,
  $$values (now() + interval '160 seconds', now() + interval '165 seconds')$$,
  'deprecated_at now() + 160 s, stopped_at now() + 165 s');

-- TEST: track_worker_function stamps created_at and updated_at, then refreshes updated_at
select pgflow.track_worker_function('my_fn');
select results_eq($$select created_at, updated_at from pgflow.worker_functions where function_name = 'my_fn'$$,
  $$values (now() + interval '165 seconds', now() + interval '165 seconds')$$, 'inserted at now() + 165 s');
select pgflow.advance_clock(1);
select pgflow.track_worker_function('my_fn');
select results_eq($$select created_at, updated_at from pgflow.worker_functions where function_name = 'my_fn'$$,
  $$values (now() + interval '165 seconds', now() + interval '166 seconds')$$, 'updated_at refreshed to now() + 166 s');

-- TEST: a dead worker's heartbeat ages on the moved clock (no heartbeat for 16 s)
select is(
  (select pgflow._now() - last_heartbeat_at from pgflow.workers
   where worker_id = '22222222-2222-2222-2222-222222222222'),
  interval '16 seconds', 'its heartbeat is 16 s old on the engine''s clock');

select * from finish();
rollback;

begin;
select plan(5);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: step approved waits for "go" with a match of two keys; remind is a timer of 60 s;
-- then the engine's time moves one minute on
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'approved');
select pgflow.add_step('approval', 'remind');
create function pg_temp.wait(fields jsonb) returns pgflow.step_waits language sql as
  $$select jsonb_populate_record(null::pgflow.step_waits, fields)$$;
select pgflow._store_step_wait(pg_temp.wait(
  '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "go",
    "signal_match": {"a": 1, "b": 2}, "timeout_seconds": 60, "on_timeout": "continue", "runs_handler": true}'));
select pgflow._store_step_wait(pg_temp.wait(
  '{"flow_slug": "approval", "step_slug": "remind", "kind": "timer", "on_timeout": "fail",
    "runs_handler": false, "sleep_seconds": 60}'));
create temp table first_rows as select * from pgflow.step_waits;
select pgflow.advance_clock(60);

-- TEST: the same signal wait again (its match written in another key order, another
-- created_at) returns the row stored first, with its created_at
select is(
  to_jsonb(pgflow._store_step_wait(pg_temp.wait(
    '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "go",
      "signal_match": {"b": 2, "a": 1}, "timeout_seconds": 60, "on_timeout": "continue", "runs_handler": true,
      "created_at": "2030-01-01T00:00:00Z"}'))),
  (select to_jsonb(f) from first_rows as f where f.step_slug = 'approved'),
  'the first row of approved is returned');
select is((pgflow._store_step_wait(pg_temp.wait(
    '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "go",
      "signal_match": {"a": 1, "b": 2}, "timeout_seconds": 60, "on_timeout": "continue", "runs_handler": true}'))).created_at,
  now(), 'its created_at is the first call''s (now()), not the engine''s time now (now() + 60 s)');

-- TEST: the same timer again
select is(
  to_jsonb(pgflow._store_step_wait(pg_temp.wait(
    '{"flow_slug": "approval", "step_slug": "remind", "kind": "timer", "on_timeout": "fail",
      "runs_handler": false, "sleep_seconds": 60}'))),
  (select to_jsonb(f) from first_rows as f where f.step_slug = 'remind'),
  'the first row of remind is returned');

-- TEST: nothing changed
select is((select count(*)::int from pgflow.step_waits), 2, 'still two rows');
select set_eq($$select to_jsonb(w) from pgflow.step_waits as w$$, $$select to_jsonb(f) from first_rows as f$$,
  'the stored rows are unchanged');

select * from finish();
rollback;

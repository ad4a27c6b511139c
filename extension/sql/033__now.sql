-- _now: the engine's one time source. now(), or in a database where the test clock is on
-- (setting pgflow.test_clock = on), now() plus the offset tests moved it by.

-- Written to be inlined by the planner (one SQL expression, no SET clause: setup_security
-- leaves this function's search_path alone, and every name in it is schema-qualified), so
-- outside tests a read of the engine's time costs a setting lookup, not a function call.
create function pgflow._now()
returns timestamptz
language sql
stable
parallel safe
as $$
  select case
    when pg_catalog.current_setting('pgflow.test_clock', true) operator(pg_catalog.=) 'on'
      then pgflow._test_clock_now()
    else pg_catalog.now()
  end
$$;

comment on function pgflow._now() is
'The engine''s time. Every time the engine stores or compares (run, step and task times,
start delays and backoff as stamped, task timeouts and stalled-task detection, waits,
timers, run deadlines, worker heartbeats, cron slots, stats windows) reads it, once per
function (a variable, or an InitPlan). It is the transaction''s now(), unless the setting
pgflow.test_clock is on in the session (a test database: ALTER DATABASE <db> SET
pgflow.test_clock = on, as pgflow.testing does): then now() plus the offset tests moved
the clock by (pgflow._test_clock_now, pgflow.advance_clock). Queue visibility (pgmq''s vt)
lives on clock_timestamp(); advance_clock shifts it by the same amount. Inlined by the
planner: outside tests it costs a setting lookup. Raises nothing. pgflow-py extension.';

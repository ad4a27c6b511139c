-- _test_clock_now: the test clock's time, now() plus the offset tests moved it by (read by
-- _now when setting pgflow.test_clock is on).

create function pgflow._test_clock_now()
returns timestamptz
language plpgsql
stable
parallel safe
as $$
declare
  v_offset interval;
begin
  select c.time_offset into v_offset from pgflow.test_clock as c;
  return pg_catalog.now() operator(pg_catalog.+) coalesce(v_offset, interval '0');
end;
$$;

comment on function pgflow._test_clock_now() is
'The engine''s time while the test clock is on: the transaction''s now() plus the offset
in pgflow.test_clock (pgflow.advance_clock; no row: no offset). Called by pgflow._now()
only when the setting pgflow.test_clock is on. Raises nothing. pgflow-py extension.';

-- advance_clock: tests move the engine's time forward; the flow queues' visibility moves too.

create function pgflow.advance_clock(seconds double precision)
returns timestamptz
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_by interval;
  v_flow text;
begin
  if advance_clock.seconds is null or advance_clock.seconds = 'NaN'::double precision
     or advance_clock.seconds < 0 or advance_clock.seconds > 3153600000 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('advance_clock: seconds must be between 0 and 3153600000 (100 years); got %s',
                       coalesce(advance_clock.seconds::text, 'NULL')),
      hint = 'The test clock only moves forward.';
  end if;
  if current_setting('pgflow.test_clock', true) is distinct from 'on' then
    raise exception using
      errcode = 'object_not_in_prerequisite_state',
      message = 'advance_clock: the test clock is off in this session (pgflow.test_clock is not on)',
      hint = 'Only in a test database: ALTER DATABASE <db> SET pgflow.test_clock = on and reconnect '
             '(pgflow.testing does it for its databases).';
  end if;
  v_by := make_interval(secs => advance_clock.seconds);

  -- One row; concurrent advances serialize on it and add up.
  insert into pgflow.test_clock as c (singleton, time_offset)
  values (true, v_by)
  on conflict on constraint test_clock_pkey do update
    set time_offset = c.time_offset + excluded.time_offset, advanced_at = clock_timestamp();

  -- pgmq decides visibility on clock_timestamp(): a message due in N seconds (a start delay,
  -- a backoff, a task timeout) is due N seconds sooner, and every message is that much older.
  -- The archive too: a paused run's parked messages keep their due time there, and pruning
  -- compares archived_at with the engine's time.
  for v_flow in
    select f.flow_slug from pgflow.flows as f
    where exists (select 1 from pgmq.meta as m where m.queue_name = f.flow_slug)
    order by f.flow_slug
  loop
    execute format('update pgmq.%I set vt = vt - $1, enqueued_at = enqueued_at - $1',
                   pgmq.format_table_name(v_flow, 'q'))
    using v_by;
    execute format('update pgmq.%I set vt = vt - $1, enqueued_at = enqueued_at - $1, '
                   'archived_at = archived_at - $1',
                   pgmq.format_table_name(v_flow, 'a'))
    using v_by;
  end loop;
  return pgflow._now();
end;
$$;

comment on function pgflow.advance_clock(double precision) is
'For tests: moves the engine''s time (pgflow._now()) forward by seconds (0 to 3153600000,
fractions allowed) and returns the new engine time. Every flow queue''s messages move with
it (vt and enqueued_at minus the same amount; archived_at too in the archive), so a message
that was due in N seconds is due in N - seconds. Nothing else happens: the waits, deadlines and stalled tasks now due are
handled by the next pgflow.tick() (the pgflow.testing clock fixture calls it). Advances add
up; there is no way back (a fresh database starts at the real clock). Not granted to any
pgflow role: for the owner, in a test database, and only where the test clock is on
(setting pgflow.test_clock = on, else object_not_in_prerequisite_state: outside tests
pgflow._now() is now() and never reads the offset). Raises invalid_parameter_value for
NULL, NaN, a negative or a larger value. Either error writes nothing. pgflow-py extension.';

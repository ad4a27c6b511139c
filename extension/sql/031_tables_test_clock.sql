-- The test clock: how far tests moved the engine's time forward (pgflow.advance_clock).
-- Empty outside tests, where pgflow._now() is the database clock.

create table pgflow.test_clock (
  singleton boolean not null default true,
  time_offset interval not null,
  advanced_at timestamptz not null default pg_catalog.clock_timestamp(),
  constraint test_clock_pkey primary key (singleton),
  constraint test_clock_has_one_row check (singleton),
  constraint test_clock_moves_forward check (time_offset >= interval '0')
);

comment on table pgflow.test_clock is
'pgflow-py extension: at most one row, written only by pgflow.advance_clock (tests): the
engine''s time is the database clock plus time_offset (pgflow._now()). advanced_at is the
real time (clock_timestamp()) of the last advance. Empty in production: pgflow._now() is
then now().';

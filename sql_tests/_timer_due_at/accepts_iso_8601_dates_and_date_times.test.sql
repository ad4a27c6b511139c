begin;
select plan(13);
select pgflow_tests.reset_db();

-- SETUP: a run whose input holds the values to read (index i at input.v.<i>). The session
-- time zone is not UTC, to show that a time without offset is read as UTC all the same.
set local timezone = 'America/New_York';
select pgflow.create_flow('due', max_attempts => 1);
select pgflow.add_step('due', 'a');
select run_id from pgflow.start_flow('due', '{"v": [
  "2030-01-02T03:04:05Z", "2030-01-02T03:04:05z", "2030-01-02T03:04:05+02:00", "2030-01-02 03:04:05+02:00",
  "2030-01-02T03:04:05+0200", "2030-01-02T03:04:05+02", "2030-01-02T03:04:05-05:30",
  "2030-01-02T03:04:05", "2030-01-02T03:04", "2030-01-02T03:04:05.123456", "2030-01-02",
  "2030-01-02 03:04:05"]}'::jsonb) \gset
create function pg_temp.due(i int) returns timestamptz language sql as $$
  select d.due_at from pgflow.runs as r, pgflow._timer_due_at(r.run_id, 'input.v.' || i) as d;
$$;

-- TEST: with an offset (Z, z, +hh:mm, +hhmm, +hh, -hh:mm; T or space between date and time)
select is(pg_temp.due(0), '2030-01-02 03:04:05+00'::timestamptz, 'Z');
select is(pg_temp.due(1), '2030-01-02 03:04:05+00'::timestamptz, 'z');
select is(pg_temp.due(2), '2030-01-02 01:04:05+00'::timestamptz, '+02:00');
select is(pg_temp.due(3), '2030-01-02 01:04:05+00'::timestamptz, 'a space instead of T');
select is(pg_temp.due(4), '2030-01-02 01:04:05+00'::timestamptz, '+0200');
select is(pg_temp.due(5), '2030-01-02 01:04:05+00'::timestamptz, '+02');
select is(pg_temp.due(6), '2030-01-02 08:34:05+00'::timestamptz, '-05:30');

-- TEST: without offset: UTC, whatever the session time zone
select is(pg_temp.due(7), '2030-01-02 03:04:05+00'::timestamptz, 'no offset: UTC');
select is(pg_temp.due(8), '2030-01-02 03:04:00+00'::timestamptz, 'no seconds: UTC');
select is(pg_temp.due(9), '2030-01-02 03:04:05.123456+00'::timestamptz, 'fractional seconds: UTC');
select is(pg_temp.due(10), '2030-01-02 00:00:00+00'::timestamptz, 'a date: midnight UTC');
select is(pg_temp.due(11), '2030-01-02 03:04:05+00'::timestamptz, 'a space, no offset: UTC');

-- TEST: no error for any of them
select is(
  (select count(*)::int from pgflow.runs as r, generate_series(0, 11) as i,
     pgflow._timer_due_at(r.run_id, 'input.v.' || i) as d where d.error_message is not null),
  0, 'no error_message for an accepted value');

select * from finish();
rollback;

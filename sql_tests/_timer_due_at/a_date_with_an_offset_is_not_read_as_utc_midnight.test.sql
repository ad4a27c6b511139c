begin;
select plan(3);
select pgflow_tests.reset_db();

-- The contract (pgflow._timer_due_at, pgflow.add_timer): the value is an ISO 8601 date or
-- date-time, "without offset: UTC". A date followed by an offset ("2030-01-02+05:00") is not
-- an ISO 8601 date; when it is accepted its offset must not be dropped silently (the timer
-- would fire 5 hours late). Either it is refused, or the offset is applied.

select pgflow.create_flow('off', max_attempts => 1);
select pgflow.add_step('off', 'a');
select run_id from pgflow.start_flow('off', '{"plus": "2030-01-02+05:00", "minus": "2030-01-02-05:00", "zulu": "2030-01-02Z"}'::jsonb) \gset

-- TEST: "+05:00" is refused or applied, never ignored
select ok(
  (select d.due_at is null or d.due_at = '2030-01-01 19:00:00+00'::timestamptz
   from pgflow._timer_due_at(:'run_id', 'input.plus') as d),
  'a date with +05:00 is refused or read as 2030-01-01 19:00 UTC, not as midnight UTC');

-- TEST: "+05:00" and "-05:00" are treated alike (both refused, or both applied)
select is(
  (select (d.due_at is null) from pgflow._timer_due_at(:'run_id', 'input.plus') as d),
  (select (d.due_at is null) from pgflow._timer_due_at(:'run_id', 'input.minus') as d),
  'a date with +05:00 and one with -05:00 are both refused or both accepted');

-- TEST: a date with Z is midnight UTC, or refused
select ok(
  (select d.due_at is null or d.due_at = '2030-01-02 00:00:00+00'::timestamptz
   from pgflow._timer_due_at(:'run_id', 'input.zulu') as d),
  'a date with Z is midnight UTC or refused');

select * from finish();
rollback;

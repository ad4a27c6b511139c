begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: an offset of an hour is stored, but this session has the test clock off (as every
-- database outside tests)
insert into pgflow.test_clock (time_offset) values (interval '1 hour');
select is(current_setting('pgflow.test_clock', true) is distinct from 'on', true, 'the test clock is off');

-- TEST: the engine's time is now(): the offset is not even read
select is(pgflow._now(), now(), '_now() is now() whatever the table holds');

-- TEST: advance_clock refuses, naming the setting, and writes nothing
select throws_ok(
  $$select pgflow.advance_clock(60)$$,
  '55000',
  'advance_clock: the test clock is off in this session (pgflow.test_clock is not on)',
  'advance_clock refuses while the test clock is off');
select is((select time_offset from pgflow.test_clock), interval '1 hour', 'the offset is unchanged');

-- TEST: turned on, the same session reads the offset
set local pgflow.test_clock = on;
select is(pgflow._now(), now() + interval '1 hour', 'on: now() plus the offset');

select * from finish();
rollback;

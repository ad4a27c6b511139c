begin;
select plan(8);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: a cron schedule (pg_cron job) and an interval schedule row of flow "sequential"
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '* * * * *', '{}'::jsonb);
insert into pgflow.schedules (schedule_name, flow_slug, schedule, input)
values ('fast', 'sequential', '20 seconds', '{}');

-- TEST: the schedule rows are stamped on the engine's clock
select results_eq($$select created_at, updated_at from pgflow.schedules where schedule_name = 'sequential'$$,
  $$values (now(), now())$$, 'schedule_flow stamps now() before the clock moves');

-- TEST: a firing in this minute takes this minute's slot
select is(pgflow._start_scheduled_flow('sequential'),
  pgflow.scheduled_run_id('sequential', date_trunc('minute', now())), 'the first firing: this minute''s slot');
select is(pgflow._start_scheduled_flow('sequential'), null::uuid, 'a second firing in the same minute starts nothing');

-- TEST: an hour later (moved clock), a firing takes that minute's slot and starts a run
select pgflow.advance_clock(3600);
select is(pgflow._start_scheduled_flow('sequential'),
  pgflow.scheduled_run_id('sequential', date_trunc('minute', now() + interval '3600 seconds')),
  'a firing an hour later: the slot of the moved minute');
select is((select count(*)::int from pgflow.runs), 2, 'two runs');
select is(
  (select max(started_at) from pgflow.runs), now() + interval '3600 seconds', 'the new run started at now() + 1 h');
select is(pgflow._start_scheduled_flow('fast'),
  pgflow.scheduled_run_id('fast', to_timestamp(floor(extract(epoch from now() + interval '3600 seconds') / 20) * 20)),
  'an interval schedule: the 20-second bucket of the moved clock');

-- TEST: replacing the schedule stamps updated_at on the moved clock, created_at kept
select pgflow.schedule_flow('sequential', '*/5 * * * *', '{}'::jsonb);
select results_eq($$select created_at, updated_at from pgflow.schedules where schedule_name = 'sequential'$$,
  $$values (now(), now() + interval '3600 seconds')$$, 'updated_at now() + 1 h, created_at kept');

select * from finish();
rollback;

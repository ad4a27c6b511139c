begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '* * * * *', '{"from": "cron"}'::jsonb);

-- TEST: the first firing of a slot starts a run keyed by schedule and slot; a repeated
-- firing in the same slot (pg_cron fired twice) starts nothing
select is(pgflow._start_scheduled_flow('sequential'),
  pgflow.scheduled_run_id('sequential', date_trunc('minute', now())),
  'the run id is derived from the schedule and the minute');
select is(pgflow._start_scheduled_flow('sequential'), null::uuid, 'a second firing returns NULL');
select is((select count(*)::int from pgflow.runs), 1, 'exactly one run');
select is((select input from pgflow.runs), '{"from": "cron"}'::jsonb, 'the run has the scheduled input');
select is((select status from pgflow.runs), 'started', 'the run is started');

select * from finish();
rollback;

begin;
select plan(4);
select pgflow_tests.reset_db();

-- TEST: pgflow_schedule:<schedule_name>
select is(pgflow._schedule_job_name('nightly'), 'pgflow_schedule:nightly', 'the name is prefixed with pgflow_schedule:');

-- TEST: the longest schedule name (47 characters) fits pg_cron's 63-character limit
select is(length(pgflow._schedule_job_name(repeat('s', 47))), 63, 'a 47-character schedule name gives 63 characters');

-- TEST: schedule_flow names its job with it
select pgflow_tests.setup_flow('sequential');
select pgflow.schedule_flow('sequential', '0 * * * *', schedule_name => 'hourly');
select is(
  (select count(*)::int from cron.job where jobname = pgflow._schedule_job_name('hourly')),
  1,
  'the pg_cron job of schedule hourly has this name'
);
select is(
  (select provolatile from pg_proc where oid = 'pgflow._schedule_job_name(text)'::regprocedure),
  'i'::"char",
  '_schedule_job_name is immutable'
);

select * from finish();
rollback;

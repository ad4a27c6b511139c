begin;
select plan(2);

-- TEST: the version is the extversion of pg_cron in this database
select is(
  pgflow._cron_version(),
  (select extversion::text from pg_extension where extname = 'pg_cron'),
  'returns the installed pg_cron version'
);
select ok(pgflow._cron_version() ~ '^[0-9]+\.[0-9]+', 'the version starts with major.minor');

select * from finish();
rollback;

begin;
select plan(1);

-- SETUP: pg_cron dropped inside this rolled-back transaction
drop extension pg_cron;

-- TEST: undefined_object with the sentence callers show
select throws_ok(
  $$select pgflow._cron_version()$$,
  '42704',
  'pg_cron is not installed in this database',
  'raises undefined_object when pg_cron is not installed'
);

select * from finish();
rollback;

begin;
select plan(4);

-- SETUP: flow stats_a without runs
select pgflow_tests.reset_db();
select pgflow.create_flow('stats_a');

-- TEST: one row per interval on the epoch's grid, from the one holding since to the one
-- holding now(), all zeros, NULL quantiles
select results_eq(
  $$select * from pgflow.get_run_counts('stats_a', now() - interval '3 hours')$$,
  $$select g, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, null::float8, null::float8
    from generate_series(date_bin('1 hour', now() - interval '3 hours', timestamptz '1970-01-01 00:00:00+00'), now(),
                         interval '1 hour') as g$$,
  'default 3600 s: the 4 hourly intervals of the last 3 hours, zeros');
select is((select count(*)::int from pgflow.get_run_counts('stats_a', now() - interval '3 hours')), 4,
  'since 3 hours ago, hourly: 4 rows');
select results_eq(
  $$select interval_start from pgflow.get_run_counts('stats_a', now() - interval '1 hour', 300)$$,
  $$select g from generate_series(date_bin('5 minutes', now() - interval '1 hour', timestamptz '1970-01-01 00:00:00+00'), now(),
                                  interval '5 minutes') as g$$,
  '300 s: one row per 5-minute bucket of the last hour, the open ones included');
select results_eq(
  $$select interval_start from pgflow.get_run_counts('stats_a', now() - interval '1 day', 86400)$$,
  $$values (date_bin('1 day', now() - interval '1 day', timestamptz '1970-01-01 00:00:00+00')),
           (date_bin('1 day', now(), timestamptz '1970-01-01 00:00:00+00'))$$,
  'a day: yesterday''s and today''s (UTC days on the epoch''s grid)');

select * from finish();
rollback;

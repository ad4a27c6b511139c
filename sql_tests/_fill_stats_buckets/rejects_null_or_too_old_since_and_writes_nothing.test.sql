begin;
select plan(7);

-- SETUP: a flow with a run that completed 20 days ago (so a fill would write a run_stats row)
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
values ('stats_a', 'completed', '{}', now() - interval '20 days', now() - interval '20 days' + interval '1 second');

-- TEST: NULL since -> 22023
select throws_ok($$select pgflow._fill_stats_buckets(null)$$, '22023', null, 'NULL since: invalid_parameter_value');

-- TEST: since more than 31 days ago -> 22023
select throws_ok($$select pgflow._fill_stats_buckets(now() - interval '31 days 1 second')$$, '22023', null,
  '31 days and 1 second ago: invalid_parameter_value');
select throws_ok($$select pgflow._fill_stats_buckets(now() - interval '1 year')$$, '22023', null,
  'a year ago: invalid_parameter_value');

-- TEST: nothing was written by the rejected calls
select results_eq(
  $$select (select count(*) from pgflow.stats_buckets), (select count(*) from pgflow.run_stats),
           (select count(*) from pgflow.step_stats)$$,
  $$values (0::bigint, 0::bigint, 0::bigint)$$,
  'no stats_buckets, run_stats or step_stats row');

-- TEST: exactly 31 days ago is accepted: every closed bucket since then is written and listed
select (extract(epoch from pgflow._stats_closed_end()
          - date_bin('5 minutes', now() - interval '31 days', timestamptz '1970-01-01 00:00:00+00')) / 300)::int
  as n_buckets \gset
select is(pgflow._fill_stats_buckets(now() - interval '31 days'), :n_buckets,
  '31 days ago: one bucket per 5 minutes up to the closed end');
select is((select count(*)::int from pgflow.stats_buckets), :n_buckets, 'all of them listed');
select is((select completed from pgflow.run_stats where flow_slug = 'stats_a'), 1,
  'the run of 20 days ago is counted');

select * from finish();
rollback;

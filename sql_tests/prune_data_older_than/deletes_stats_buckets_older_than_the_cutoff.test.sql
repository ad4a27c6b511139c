begin;
select plan(7);

-- SETUP: stats rows (run_stats, step_stats, stats_buckets) of flow stats_a for three buckets:
-- 8 days ago, the one holding 7 days + 1 second ago (it starts before a 7-day cutoff even if
-- it ends after it), and 6 days ago
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 's1');
create temporary table buckets on commit drop as
select b.label, date_bin('5 minutes', now() - b.age, timestamptz '1970-01-01 00:00:00+00') as bucket_start
from (values ('old', interval '8 days'), ('straddling', interval '7 days 1 second'), ('new', interval '6 days')) as b (label, age);
insert into pgflow.stats_buckets (bucket_start) select bucket_start from buckets;
insert into pgflow.run_stats (flow_slug, bucket_start, completed) select 'stats_a', bucket_start, 1 from buckets;
insert into pgflow.step_stats (flow_slug, step_slug, bucket_start, completed) select 'stats_a', 's1', bucket_start, 1 from buckets;

-- TEST: a 7-day retention deletes the buckets that started before the cutoff, in all three
-- tables
select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$, 'prune');
select results_eq('select bucket_start from pgflow.stats_buckets',
  $$select bucket_start from buckets where label = 'new'$$, 'stats_buckets: only the 6-day-old bucket is kept');
select results_eq('select bucket_start from pgflow.run_stats',
  $$select bucket_start from buckets where label = 'new'$$, 'run_stats: only the 6-day-old row is kept');
select results_eq('select bucket_start from pgflow.step_stats',
  $$select bucket_start from buckets where label = 'new'$$, 'step_stats: only the 6-day-old row is kept');

-- TEST: rows written by _fill_stats_buckets go the same way: fill the last day, then keep 1 hour
select ok(pgflow._fill_stats_buckets(now() - interval '1 day') > 0, 'the last day''s buckets written');
select pgflow.prune_data_older_than(interval '1 hour');
select is((select count(*)::int from pgflow.stats_buckets where bucket_start < now() - interval '1 hour'), 0,
  'no bucket older than the 1-hour cutoff is left');
select is((select count(*)::int from pgflow.stats_buckets),
  (select count(*)::int from generate_series(
     date_bin('5 minutes', now() - interval '1 day', timestamptz '1970-01-01 00:00:00+00'),
     pgflow._stats_closed_end() - interval '5 minutes', interval '5 minutes') as g
   where g >= now() - interval '1 hour'),
  'the buckets that started within the last hour are kept');

select * from finish();
rollback;

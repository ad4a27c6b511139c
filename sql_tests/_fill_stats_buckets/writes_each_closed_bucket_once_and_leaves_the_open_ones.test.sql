begin;
select plan(12);

-- SETUP: flow stats_a (one step s1); t0 on the 5-minute grid one hour ago. Runs inserted
-- directly: one completed in bucket t0 + 5 min, one completed 1 minute ago (an open
-- bucket). ce = pgflow._stats_closed_end(): the buckets t0 .. ce - 5 min are closed.
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 's1');
select date_bin('5 minutes', now() - interval '1 hour', timestamptz '1970-01-01 00:00:00+00') as t0,
       pgflow._stats_closed_end() as ce,
       (extract(epoch from pgflow._stats_closed_end() - date_bin('5 minutes', now() - interval '1 hour',
         timestamptz '1970-01-01 00:00:00+00')) / 300)::int as n_closed \gset
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at) values
  ('stats_a', 'completed', '{"label": "closed"}', :'t0'::timestamptz + interval '6 minutes', :'t0'::timestamptz + interval '7 minutes'),
  ('stats_a', 'completed', '{"label": "open"}', now() - interval '90 seconds', now() - interval '1 minute');
insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks, created_at, started_at, completed_at)
select r.flow_slug, r.run_id, 's1', 'completed', 0, r.started_at, r.started_at, r.completed_at from pgflow.runs as r;

-- TEST: the first call writes every closed bucket from the one holding since (rounded down
-- to the grid) and returns how many
select is(pgflow._fill_stats_buckets(:'t0'::timestamptz + interval '2 minutes'), :n_closed,
  'returns the number of closed buckets from t0 to ce');
select results_eq(
  'select bucket_start from pgflow.stats_buckets order by bucket_start',
  format($$select g from generate_series(%L::timestamptz, %L::timestamptz - interval '5 minutes', interval '5 minutes') as g$$,
         :'t0', :'ce'),
  'stats_buckets lists each closed bucket t0 .. ce - 5 min, empty ones included');
select results_eq(
  'select flow_slug, bucket_start, started, completed, duration_histogram from pgflow.run_stats',
  format($$values ('stats_a'::text, %L::timestamptz + interval '5 minutes', 1, 1, pgflow._duration_histogram(array[60]::float8[]))$$, :'t0'),
  'run_stats: one row, for the bucket of the closed run (empty buckets have none)');
select results_eq(
  'select flow_slug, step_slug, bucket_start, completed, duration_histogram from pgflow.step_stats',
  format($$values ('stats_a'::text, 's1'::text, %L::timestamptz + interval '5 minutes', 1, pgflow._duration_histogram(array[60]::float8[]))$$, :'t0'),
  'step_stats: one row, for the bucket of the closed run');

-- TEST: the open buckets (from ce on) are left alone: the run that ended 1 minute ago is not
-- written
select is((select count(*)::int from pgflow.stats_buckets where bucket_start >= :'ce'), 0, 'no open bucket listed');
select is((select count(*)::int from pgflow.run_stats where bucket_start >= :'ce'), 0, 'no run_stats row for an open bucket');
select is((select count(*)::int from pgflow.step_stats where bucket_start >= :'ce'), 0, 'no step_stats row for an open bucket');

-- TEST: a second call returns 0 and writes nothing
create temporary table before_second on commit drop as
  select (select count(*) from pgflow.stats_buckets) as buckets, (select count(*) from pgflow.run_stats) as run_rows,
         (select count(*) from pgflow.step_stats) as step_rows;
select is(pgflow._fill_stats_buckets(:'t0'), 0, 'the second call writes no bucket');
select results_eq(
  $$select (select count(*) from pgflow.stats_buckets), (select count(*) from pgflow.run_stats),
           (select count(*) from pgflow.step_stats)$$,
  'select buckets, run_rows, step_rows from before_second',
  'row counts unchanged');

-- TEST: a bucket already listed is not written again, even when a run was added to it
-- since: only the missing buckets before t0 (t0 - 10 and t0 - 5 min) are written
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at) values
  ('stats_a', 'completed', '{"label": "late"}', :'t0'::timestamptz + interval '6 minutes', :'t0'::timestamptz + interval '8 minutes');
select is(pgflow._fill_stats_buckets(:'t0'::timestamptz - interval '10 minutes'), 2,
  'since t0 - 10 min: the two buckets before t0 are written');
select results_eq(
  'select bucket_start, completed from pgflow.run_stats order by bucket_start',
  format($$values (%L::timestamptz + interval '5 minutes', 1)$$, :'t0'),
  'the t0 + 5 min row is the one written first (1 completed, not 2), no new row');

-- TEST: since in an open bucket (or the future): nothing closed, 0
select is(pgflow._fill_stats_buckets(now()), 0, 'since now(): 0');

select * from finish();
rollback;

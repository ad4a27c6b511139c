begin;
select plan(4);

-- The first interval counts only from the 5-minute bucket holding since on: its earlier
-- buckets are neither read nor computed, so the answer never depends on which calls
-- filled which buckets before.

-- SETUP: flow stats_a; run a started h0 + 4 min, completed h0 + 5 min; run b started
-- h0 + 40 min, completed h0 + 41 min; h0 = the hour (epoch grid) holding now() - 3 hours;
-- no stats written yet
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select date_bin('1 hour', now() - interval '3 hours', timestamptz '1970-01-01 00:00:00+00') as h0 \gset
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
values ('stats_a', 'completed', '{}', :'h0'::timestamptz + interval '4 minutes', :'h0'::timestamptz + interval '5 minutes'),
       ('stats_a', 'completed', '{}', :'h0'::timestamptz + interval '40 minutes', :'h0'::timestamptz + interval '41 minutes');

-- TEST: since h0 + 30 min, hourly: the first row (interval h0) counts run b only
select results_eq(
  format($$select interval_start, started, completed from pgflow.get_run_counts('stats_a', %L::timestamptz + interval '30 minutes') limit 1$$, :'h0'),
  format($$values (%L::timestamptz, 1::bigint, 1::bigint)$$, :'h0'),
  'a first call since h0 + 30 min counts run b, not run a (before since)');

-- TEST: a call since h0 writes the buckets h0 .. h0 + 25 min and counts both runs
select results_eq(
  format($$select interval_start, started, completed from pgflow.get_run_counts('stats_a', %L) limit 1$$, :'h0'),
  format($$values (%L::timestamptz, 2::bigint, 2::bigint)$$, :'h0'),
  'since h0: both runs');
select ok(exists (select 1 from pgflow.stats_buckets where bucket_start = :'h0'::timestamptz),
  'the bucket of run a is written now');

-- TEST: the first call again answers as it did
select results_eq(
  format($$select interval_start, started, completed from pgflow.get_run_counts('stats_a', %L::timestamptz + interval '30 minutes') limit 1$$, :'h0'),
  format($$values (%L::timestamptz, 1::bigint, 1::bigint)$$, :'h0'),
  'since h0 + 30 min again: the same answer, whatever was written meanwhile');

select * from finish();
rollback;

-- Run and step statistics in 5-minute buckets, for the dashboard's flow pages and `pgflow
-- flows`: filled on demand from finished runs, never written by the engine's transitions.

create table pgflow.stats_buckets (
  bucket_start timestamptz not null,
  filled_at timestamptz not null default pgflow._now(),
  constraint stats_buckets_pkey primary key (bucket_start)
);

comment on table pgflow.stats_buckets is
'pgflow-py extension: the 5-minute buckets (bucket_start, on the epoch''s 5-minute grid)
whose run_stats and step_stats rows are written (by _fill_stats_buckets, for every flow at
once). A bucket is filled once it is closed: it ended at least 2 minutes ago. A bucket
listed here with no stats row for a flow had no activity of that flow.';

create table pgflow.run_stats (
  flow_slug text not null,
  bucket_start timestamptz not null,
  started int not null default 0,
  completed int not null default 0,
  failed int not null default 0,
  cancelled int not null default 0,
  expired int not null default 0,
  duration_histogram int[] not null default '{}',
  constraint run_stats_pkey primary key (flow_slug, bucket_start)
);

comment on table pgflow.run_stats is
'pgflow-py extension: per flow and 5-minute bucket, the runs started in the bucket and the
runs that ended in it (completed, failed, cancelled, expired), with the durations of the
completed ones (started_at -> completed_at) as a histogram: element i (1-based) counts
durations d with floor(4 * log2(d in ms)) = i - 1 (d < 1 ms counts in element 1), so each
bucket is 19% wide (_duration_histogram, _histogram_quantile). Written by
_fill_stats_buckets; read by get_flow_stats and get_run_counts.';

create table pgflow.step_stats (
  flow_slug text not null,
  step_slug text not null,
  bucket_start timestamptz not null,
  completed int not null default 0,
  failed int not null default 0,
  skipped int not null default 0,
  cancelled int not null default 0,
  retried int not null default 0,
  duration_histogram int[] not null default '{}',
  constraint step_stats_pkey primary key (flow_slug, step_slug, bucket_start)
);

comment on table pgflow.step_stats is
'pgflow-py extension: per flow, step and 5-minute bucket, the steps of the runs that ended in
the bucket, by final status (completed, failed, skipped, cancelled), how many of them had a
task attempted more than once (retried), and the durations of the completed ones
(started_at -> completed_at, the whole step: every task of a map step) as a histogram (see
run_stats). A step is counted when its run ends. Written by _fill_stats_buckets.';

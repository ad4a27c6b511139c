-- get_run_counts: runs of a flow started and ended per interval since a time.

create function pgflow.get_run_counts(flow_slug text, since timestamptz, interval_seconds int default 3600)
returns table (
  interval_start timestamptz,
  started bigint,
  completed bigint,
  failed bigint,
  cancelled bigint,
  expired bigint,
  p50_seconds double precision,
  p95_seconds double precision
)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_interval interval := make_interval(secs => get_run_counts.interval_seconds);
  v_first timestamptz;
  v_from timestamptz := date_bin(interval '5 minutes', get_run_counts.since, timestamptz '1970-01-01 00:00:00+00');
  v_closed_end timestamptz;
  v_now timestamptz;
begin
  if get_run_counts.interval_seconds is null or get_run_counts.interval_seconds < 300
     or get_run_counts.interval_seconds % 300 <> 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('get_run_counts: interval_seconds must be a multiple of 300 (got %s)',
                       get_run_counts.interval_seconds);
  end if;
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = get_run_counts.flow_slug) then
    raise exception using
      errcode = 'no_data_found',
      message = format('get_run_counts: flow %L does not exist', get_run_counts.flow_slug);
  end if;
  perform pgflow._fill_stats_buckets(get_run_counts.since);
  v_first := date_bin(v_interval, get_run_counts.since, timestamptz '1970-01-01 00:00:00+00');
  v_closed_end := pgflow._stats_closed_end();
  v_now := pgflow._now();
  return query
  with buckets as (
    select r.*, date_bin(v_interval, r.bucket_start, timestamptz '1970-01-01 00:00:00+00') as interval_start
    from (
      select s.* from pgflow.run_stats as s
      where s.flow_slug = get_run_counts.flow_slug
        and s.bucket_start >= v_from and s.bucket_start < v_closed_end
      union all
      select c.* from pgflow._compute_run_stats(greatest(v_from, v_closed_end), 'infinity',
                                                get_run_counts.flow_slug) as c
    ) as r
  ),
  histograms as (
    select e.interval_start, array_agg(e.n order by e.i) as histogram
    from (
      select b.interval_start, h.i, sum(h.n)::int as n
      from buckets as b, unnest(b.duration_histogram) with ordinality as h (n, i)
      group by b.interval_start, h.i
    ) as e
    group by e.interval_start
  )
  select g.interval_start, coalesce(sum(b.started), 0)::bigint, coalesce(sum(b.completed), 0)::bigint,
         coalesce(sum(b.failed), 0)::bigint, coalesce(sum(b.cancelled), 0)::bigint,
         coalesce(sum(b.expired), 0)::bigint,
         pgflow._histogram_quantile(min(h.histogram), 0.5), pgflow._histogram_quantile(min(h.histogram), 0.95)
  from generate_series(v_first, v_now, v_interval) as g (interval_start)
  left join buckets as b on b.interval_start = g.interval_start
  left join histograms as h on h.interval_start = g.interval_start
  group by g.interval_start
  order by g.interval_start;
end;
$$;

comment on function pgflow.get_run_counts(text, timestamptz, int) is
'One row per interval of interval_seconds (a multiple of 300, default 3600; else 22023
invalid_parameter_value) on the epoch''s grid, from the one holding since (timestamptz,
within the last 31 days, else 22023) to the engine''s time (pgflow._now()), for flow
flow_slug; the first interval counts only from the 5-minute bucket holding since on. Per
interval: runs started in it
(started_at; a run created queued counts when it leaves the queue), runs that ended in it
by final status (completed,
failed, cancelled, expired), and p50_seconds / p95_seconds, estimates of the completed
runs'' durations (seconds, within 19%; NULL when none). Every interval has a row (zeros).
Closed 5-minute buckets come from run_stats (written first when missing), the last minutes
from the runs. P0002 no_data_found for an unknown flow. SECURITY DEFINER. pgflow-py
extension.';


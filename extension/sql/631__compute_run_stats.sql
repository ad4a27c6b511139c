-- _compute_run_stats: run counts and durations per flow and 5-minute bucket, from the runs.

create function pgflow._compute_run_stats(range_start timestamptz, range_end timestamptz, only_flow text default null)
returns setof pgflow.run_stats
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  with ended as (
    select e.flow_slug, e.bucket_start,
           count(*) filter (where e.status = 'completed')::int as completed,
           count(*) filter (where e.status = 'failed')::int as failed,
           count(*) filter (where e.status = 'cancelled')::int as cancelled,
           count(*) filter (where e.status = 'expired')::int as expired,
           pgflow._duration_histogram(array_agg(
             extract(epoch from e.completed_at - e.started_at)::double precision
           ) filter (where e.status = 'completed')) as duration_histogram
    from pgflow._ended_runs(_compute_run_stats.range_start, _compute_run_stats.range_end,
                            _compute_run_stats.only_flow) as e
    group by e.flow_slug, e.bucket_start
  ),
  started as (
    -- Each flow's runs through idx_runs_flow_started_at.
    select f.flow_slug,
           date_bin(interval '5 minutes', r.started_at, timestamptz '1970-01-01 00:00:00+00') as bucket_start,
           count(*)::int as started
    from pgflow.flows as f
    cross join lateral (
      select r.started_at
      from pgflow.runs as r
      where r.flow_slug = f.flow_slug
        and r.started_at >= _compute_run_stats.range_start
        and r.started_at < _compute_run_stats.range_end
        -- A run created queued starts when it leaves the queue (started_at moves then):
        -- while queued (started_at = queued_at) it has not started.
        and (r.queued_at is null or r.started_at > r.queued_at)
    ) as r
    where _compute_run_stats.only_flow is null or f.flow_slug = _compute_run_stats.only_flow
    group by 1, 2
  )
  select coalesce(e.flow_slug, s.flow_slug), coalesce(e.bucket_start, s.bucket_start),
         coalesce(s.started, 0), coalesce(e.completed, 0), coalesce(e.failed, 0),
         coalesce(e.cancelled, 0), coalesce(e.expired, 0),
         coalesce(e.duration_histogram, '{}'::int[])
  from ended as e
  full join started as s on s.flow_slug = e.flow_slug and s.bucket_start = e.bucket_start
$$;

comment on function pgflow._compute_run_stats(timestamptz, timestamptz, text) is
'The run_stats rows of the 5-minute buckets from range_start to range_end (both on the
bucket grid; range_end excluded), for only_flow or every flow (NULL): runs started in each
bucket (started_at; a run created queued counts when it leaves the queue), runs that ended in it by final status, and the
histogram of the completed ones'' durations. Computed from runs, writes nothing; a bucket
with no activity has no row. Used by _fill_stats_buckets (closed buckets) and the stats
readers (the buckets not closed yet). pgflow-py extension.';


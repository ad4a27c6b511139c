-- _ended_runs: the runs that ended in a time range, with their stats bucket.

create function pgflow._ended_runs(range_start timestamptz, range_end timestamptz, only_flow text default null)
returns table (
  run_id uuid,
  flow_slug text,
  status text,
  started_at timestamptz,
  completed_at timestamptz,
  bucket_start timestamptz
)
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  -- The expression and predicate of idx_runs_ended_at, so the range is an index scan.
  select r.run_id, r.flow_slug, r.status, r.started_at, r.completed_at,
         date_bin(
           interval '5 minutes',
           coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at),
           timestamptz '1970-01-01 00:00:00+00'
         )
  from pgflow.runs as r
  where r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) >= _ended_runs.range_start
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < _ended_runs.range_end
    and (_ended_runs.only_flow is null or r.flow_slug = _ended_runs.only_flow)
$$;

comment on function pgflow._ended_runs(timestamptz, timestamptz, text) is
'The runs (of only_flow, or of every flow when NULL) that ended (completed, failed,
cancelled, expired) at range_start or later and before range_end, with the start of the
5-minute stats bucket (on the epoch''s grid) their end falls in. Read through
idx_runs_ended_at. Used by _compute_run_stats and _compute_step_stats. pgflow-py extension.';


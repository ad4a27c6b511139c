-- get_step_stats: per step of a flow, outcomes, retry rate and duration quantiles since a time.

create function pgflow.get_step_stats(flow_slug text, since timestamptz)
returns table (
  step_slug text,
  completed bigint,
  failed bigint,
  skipped bigint,
  cancelled bigint,
  retried bigint,
  failure_rate double precision,
  retry_rate double precision,
  p50_seconds double precision,
  p95_seconds double precision
)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_first timestamptz := date_bin(interval '5 minutes', get_step_stats.since, timestamptz '1970-01-01 00:00:00+00');
  v_closed_end timestamptz;
begin
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = get_step_stats.flow_slug) then
    raise exception using
      errcode = 'no_data_found',
      message = format('get_step_stats: flow %L does not exist', get_step_stats.flow_slug);
  end if;
  perform pgflow._fill_stats_buckets(get_step_stats.since);
  v_closed_end := pgflow._stats_closed_end();
  return query
  with buckets as (
    select s.* from pgflow.step_stats as s
    where s.flow_slug = get_step_stats.flow_slug
      and s.bucket_start >= v_first and s.bucket_start < v_closed_end
    union all
    select c.* from pgflow._compute_step_stats(greatest(v_first, v_closed_end), 'infinity',
                                               get_step_stats.flow_slug) as c
  ),
  sums as (
    select b.step_slug, sum(b.completed)::bigint as completed, sum(b.failed)::bigint as failed,
           sum(b.skipped)::bigint as skipped, sum(b.cancelled)::bigint as cancelled,
           sum(b.retried)::bigint as retried
    from buckets as b group by b.step_slug
  ),
  histograms as (
    select e.step_slug, array_agg(e.n order by e.i) as histogram
    from (
      select b.step_slug, h.i, sum(h.n)::int as n
      from buckets as b, unnest(b.duration_histogram) with ordinality as h (n, i)
      group by b.step_slug, h.i
    ) as e
    group by e.step_slug
  )
  select st.step_slug, coalesce(s.completed, 0), coalesce(s.failed, 0), coalesce(s.skipped, 0),
         coalesce(s.cancelled, 0), coalesce(s.retried, 0),
         s.failed::double precision / nullif(s.completed + s.failed, 0),
         s.retried::double precision / nullif(s.completed + s.failed, 0),
         pgflow._histogram_quantile(h.histogram, 0.5), pgflow._histogram_quantile(h.histogram, 0.95)
  from pgflow.steps as st
  left join sums as s on s.step_slug = st.step_slug
  left join histograms as h on h.step_slug = st.step_slug
  where st.flow_slug = get_step_stats.flow_slug
  order by st.step_index;
end;
$$;

comment on function pgflow.get_step_stats(text, timestamptz) is
'One row per step of flow flow_slug (in step order), over the steps of its runs that ended
since since (timestamptz, rounded down to the 5-minute grid; within the last 31 days):
how many completed, failed, were skipped or cancelled, how many completed or failed steps
had a task attempted more than once (retried), failure_rate = failed / (completed +
failed) and retry_rate = retried / (completed + failed) (NULL when none finished), and
p50_seconds / p95_seconds, estimates of the median and 95th percentile of the completed
steps'' durations (started_at -> completed_at, seconds; within 19%: _histogram_quantile;
NULL when none completed). A step counts when its run ends. Closed buckets are read from
step_stats (written first when missing, _fill_stats_buckets), the last minutes computed
from the runs. Errors: P0002 no_data_found for an unknown flow, 22023 for since outside the
last 31 days. Read-only for the caller apart from those stats rows; SECURITY DEFINER.
pgflow-py extension.';


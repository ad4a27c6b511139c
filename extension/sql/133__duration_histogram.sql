-- _duration_histogram: the duration histogram of a set of durations.

create function pgflow._duration_histogram(durations_seconds double precision[])
returns int[]
language sql
immutable
parallel safe
set search_path = pg_catalog, pg_temp
as $$
  with elements as (
    select case when d < 0.001 then 1 else 1 + floor(4 * ln(d * 1000) / ln(2))::int end as i
    from unnest(_duration_histogram.durations_seconds) as d
    where d is not null
  )
  select coalesce(array_agg(coalesce(c.n, 0) order by g.i), '{}'::int[])
  from generate_series(1, (select max(e.i) from elements as e)) as g (i)
  left join (select e.i, count(*)::int as n from elements as e group by e.i) as c on c.i = g.i
$$;

comment on function pgflow._duration_histogram(double precision[]) is
'The duration histogram (run_stats.duration_histogram, step_stats.duration_histogram) of
durations_seconds (seconds, >= 0; NULLs ignored): element i (1-based) counts the durations d
with 1 + floor(4 * log2(d in ms)) = i, so it covers [2^((i-1)/4), 2^(i/4)) ms, each element
about 19% wider than the one before; durations under 1 ms count in element 1. Dense up to the
largest element used; ''{}'' for no duration. Read back by _histogram_quantile. pgflow-py
extension.';


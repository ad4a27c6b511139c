-- _histogram_quantile: a quantile of the durations a histogram counts, in seconds.

create function pgflow._histogram_quantile(histogram int[], quantile double precision)
returns double precision
language sql
immutable
parallel safe
set search_path = pg_catalog, pg_temp
as $$
  -- The element holding the rank quantile * total; linear inside it.
  with elements as (
    select h.i::int as i, h.n,
           sum(h.n) over (order by h.i) - h.n as below,
           sum(h.n) over () as total
    from unnest(_histogram_quantile.histogram) with ordinality as h (n, i)
  )
  select (case when e.i = 1 then 0 else power(2, (e.i - 1) / 4.0) end
          + (power(2, e.i / 4.0) - case when e.i = 1 then 0 else power(2, (e.i - 1) / 4.0) end)
            * (_histogram_quantile.quantile * e.total - e.below) / e.n) / 1000.0
  from elements as e
  where e.n > 0 and e.below + e.n >= _histogram_quantile.quantile * e.total
  order by e.i
  limit 1
$$;

comment on function pgflow._histogram_quantile(int[], double precision) is
'An estimate, in seconds, of the quantile (0..1, e.g. 0.5, 0.95) of the durations counted
by histogram (a duration histogram of run_stats / step_stats, _duration_histogram): the
element in which the rank quantile * total falls, interpolated linearly between its bounds
(2^((i-1)/4) and 2^(i/4) ms; 0 for element 1), so the estimate is within the 19% width of
that element. NULL when the histogram counts nothing. pgflow-py extension.';


begin;
select plan(10);

-- SETUP: 1000 durations spread evenly from 0.01 to 10 s, and 1000 spread on a log scale
-- from 1 ms to 100 s; the true quantile is the duration of rank ceil(q * 1000).
create temporary table spreads (spread text, d float8) on commit drop;
insert into spreads select 'linear', g * 0.01 from generate_series(1, 1000) as g;
insert into spreads select 'log', power(10, -3 + 5 * g / 1000.0) from generate_series(1, 1000) as g;

-- TEST: for p10, p50, p90, p95 and p99 of both spreads, |estimate / true - 1| < 0.19
select ok(
  abs(pgflow._histogram_quantile(h.histogram, q.q) / t.true_q - 1) < 0.19,
  format('%s spread, quantile %s: estimate %s s, true %s s', h.spread, q.q,
         round(pgflow._histogram_quantile(h.histogram, q.q)::numeric, 4), round(t.true_q::numeric, 4)))
from (select s.spread, pgflow._duration_histogram(array_agg(s.d)) as histogram
      from spreads as s group by s.spread) as h
cross join unnest(array[0.1, 0.5, 0.9, 0.95, 0.99]::float8[]) as q (q)
cross join lateral (
  select s.d as true_q from spreads as s where s.spread = h.spread
  order by s.d offset ceil(q.q * 1000)::int - 1 limit 1
) as t
order by h.spread, q.q;

select * from finish();
rollback;

begin;
select plan(10);

-- TEST: a single non-empty element: every quantile lies within its bounds
-- (element 5 covers [2^(4/4), 2^(5/4)) ms = [2, 2.378) ms)
select ok(pgflow._histogram_quantile('{0,0,0,0,5}'::int[], q) between 0.002 and power(2, 5 / 4.0) / 1000,
  format('element 5 alone, quantile %s: within [2 ms, 2.378 ms]', q))
from unnest(array[0, 0.5, 0.95, 1]::float8[]) as q;
select ok(pgflow._histogram_quantile('{4}'::int[], 0.5) between 0 and power(2, 1 / 4.0) / 1000,
  'element 1 alone: p50 within [0, 1.189 ms] (element 1 starts at 0)');

-- TEST: p50 of known counts: 1 in element 5, 2 in element 9, 1 in element 13; the rank
-- 0.5 * 4 = 2 is the first of element 9's two, halfway through [4, 4.757) ms
select ok(abs(pgflow._histogram_quantile('{0,0,0,0,1,0,0,0,2,0,0,0,1}'::int[], 0.5)
              - (4 + (power(2, 9 / 4.0) - 4) * 0.5) / 1000) < 1e-12,
  'p50 = 4.378 ms');
select ok(abs(pgflow._histogram_quantile('{0,0,0,0,1,0,0,0,2,0,0,0,1}'::int[], 0.25) - power(2, 5 / 4.0) / 1000) < 1e-12,
  'p25 = the upper bound of element 5 (rank 1 = its one duration)');

-- TEST: quantile 1 = the upper bound of the last non-empty element (trailing zeros ignored)
select ok(abs(pgflow._histogram_quantile('{0,0,0,0,1,0,0,0,2,0,0,0,1}'::int[], 1) - power(2, 13 / 4.0) / 1000) < 1e-12,
  'quantile 1 = 2^(13/4) ms');
select ok(abs(pgflow._histogram_quantile('{0,0,0,0,1,0,0,0,2,0,0,0,1,0,0}'::int[], 1) - power(2, 13 / 4.0) / 1000) < 1e-12,
  'quantile 1 with trailing zeros = 2^(13/4) ms');

-- TEST: the result is in seconds: 1 s lands in element 40 ([0.8409, 1.024) s)
select ok(pgflow._histogram_quantile(pgflow._duration_histogram(array[1]::float8[]), 0.5)
            between power(2, 39 / 4.0) / 1000 and power(2, 40 / 4.0) / 1000,
  'p50 of a single 1 s duration is within element 40, in seconds');

select * from finish();
rollback;

begin;
select plan(8);

-- TEST: dense up to the largest element used: the elements in between hold zeros
select is(pgflow._duration_histogram(array[0.0005, 0.003]::float8[]), '{1,0,0,0,0,0,1}'::int[],
  'elements 2..6 are zeros');
select is(pgflow._duration_histogram(array[0.003, 0.0005, 0.0004, 0.003, 0.003]::float8[]), '{2,0,0,0,0,0,3}'::int[],
  'counts per element, whatever the order of the durations');
select is(cardinality(pgflow._duration_histogram(array[0.0001, 1, 0.5]::float8[])), 40,
  'the histogram ends at the largest element used (40 for 1 s)');

-- TEST: NULL durations are ignored
select is(pgflow._duration_histogram(array[null, 0.0005, null]::float8[]), '{1}'::int[],
  'NULLs ignored beside a duration');
select is(pgflow._duration_histogram(array[null]::float8[]), '{}'::int[], 'only NULLs -> {}');

-- TEST: no duration -> '{}' (never NULL: the stats columns are NOT NULL)
select is(pgflow._duration_histogram('{}'::float8[]), '{}'::int[], 'an empty array -> {}');
select is(pgflow._duration_histogram(null), '{}'::int[], 'a NULL array (array_agg of no rows) -> {}');

-- TEST: the total is the number of non-NULL durations
select is(
  (select sum(n)::int from unnest(pgflow._duration_histogram(
     array(select g * 0.01 from generate_series(1, 1000) as g)::float8[] || array[null]::float8[])) as n),
  1000, '1000 durations and a NULL -> a total of 1000');

select * from finish();
rollback;

begin;
select plan(10);

-- TEST: durations under 1 ms, and 1 ms itself, count in element 1
select is(pgflow._duration_histogram(array[0]::float8[]), '{1}'::int[], '0 s -> element 1');
select is(pgflow._duration_histogram(array[0.0005]::float8[]), '{1}'::int[], '0.5 ms -> element 1');
select is(pgflow._duration_histogram(array[0.001]::float8[]), '{1}'::int[], '1 ms -> element 1');
select is(pgflow._duration_histogram(array[0.00118]::float8[]), '{1}'::int[],
  '1.18 ms (under 2^(1/4) = 1.189 ms) -> element 1');

-- TEST: element 2 starts at 2^(1/4) ms; a power of two of ms starts an element
select is(pgflow._duration_histogram(array[0.0012]::float8[]), '{0,1}'::int[], '1.2 ms -> element 2');
select is(pgflow._duration_histogram(array[0.002]::float8[]), '{0,0,0,0,1}'::int[],
  '2 ms = 2^(4/4) ms -> element 5');
select is(pgflow._duration_histogram(array[0.003]::float8[]), '{0,0,0,0,0,0,1}'::int[],
  '3 ms (2^(6/4) = 2.83 .. 2^(7/4) = 3.36 ms) -> element 7');

-- TEST: 1 s -> 1 + floor(4 * log2(1000)) = 40; 10 min -> 1 + floor(4 * log2(600000)) = 77
select is(pgflow._duration_histogram(array[1]::float8[]), array_fill(0, array[39]) || 1,
  '1 s -> element 40 (39 zeros before it)');
select is(pgflow._duration_histogram(array[600]::float8[]), array_fill(0, array[76]) || 1,
  '600 s -> element 77');

-- TEST: every element is about 19% wider than the one before: element 40 is [840.9, 1024)
-- ms, element 41 [1024, 1217.8) ms, element 42 starts at 1217.8 ms
select is(pgflow._duration_histogram(array[1, 1.02, 1.03, 1.22]::float8[]), array_fill(0, array[39]) || array[2, 1, 1],
  '1 s and 1.02 s -> element 40, 1.03 s -> element 41, 1.22 s -> element 42');

select * from finish();
rollback;

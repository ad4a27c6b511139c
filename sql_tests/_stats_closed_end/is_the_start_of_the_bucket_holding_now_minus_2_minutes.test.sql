begin;
select plan(7);

-- TEST: on the epoch's 5-minute grid
select is(extract(epoch from pgflow._stats_closed_end())::numeric % 300, 0::numeric,
  'a whole number of 5-minute buckets since the epoch');
select is(extract(minute from pgflow._stats_closed_end())::int % 5, 0, 'a minute divisible by 5');
select is(extract(second from pgflow._stats_closed_end())::numeric, 0::numeric, 'no seconds');

-- TEST: the bucket it starts holds now() - 2 min: start <= now() - 2 min < start + 5 min
select ok(pgflow._stats_closed_end() <= now() - interval '2 minutes', 'it starts at or before now() - 2 min');
select ok(pgflow._stats_closed_end() + interval '5 minutes' > now() - interval '2 minutes',
  'the bucket it starts ends after now() - 2 min');

-- TEST: so it lies less than 7 minutes before now() (the transaction's clock); for any now()
-- that is date_bin(5 min, now() - 2 min) on the epoch's grid
select ok(pgflow._stats_closed_end() > now() - interval '7 minutes', 'less than 7 minutes before now()');
select is(pgflow._stats_closed_end(),
  date_bin('5 minutes', now() - interval '2 minutes', timestamptz '1970-01-01 00:00:00+00'),
  'the start of the 5-minute bucket holding now() - 2 min');

select * from finish();
rollback;

-- _stats_closed_end: where the closed stats buckets end.

create function pgflow._stats_closed_end()
returns timestamptz
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select date_bin(interval '5 minutes', (select pgflow._now()) - interval '2 minutes',
                  timestamptz '1970-01-01 00:00:00+00')
$$;

comment on function pgflow._stats_closed_end() is
'The end of the closed 5-minute stats buckets: the start of the bucket that holds the
engine''s time (pgflow._now()) - 2 minutes. Buckets before it are written once
(_fill_stats_buckets); the stats readers compute the ones from it on from the runs at each
call. pgflow-py extension.';


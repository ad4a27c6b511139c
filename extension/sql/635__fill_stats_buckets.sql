-- _fill_stats_buckets: writes the stats of the closed 5-minute buckets not written yet.

create function pgflow._fill_stats_buckets(since timestamptz)
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_closed_end timestamptz := pgflow._stats_closed_end();
  v_first timestamptz := date_bin(interval '5 minutes', _fill_stats_buckets.since,
                                  timestamptz '1970-01-01 00:00:00+00');
  v_missing timestamptz[];
  v_now timestamptz := pgflow._now();
begin
  if _fill_stats_buckets.since is null or _fill_stats_buckets.since < v_now - interval '31 days' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('stats: since must be within the last 31 days (got %s)', _fill_stats_buckets.since);
  end if;
  if v_first >= v_closed_end or (
    select count(*) from pgflow.stats_buckets as b
    where b.bucket_start >= v_first and b.bucket_start < v_closed_end
  ) = (extract(epoch from v_closed_end - v_first) / 300)::int then
    return 0;  -- nothing closed since, or all written: the usual case, no lock taken
  end if;

  -- One filler at a time: a second one waits, then finds the buckets written.
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('pgflow.stats_buckets'));
  select array_agg(g.bucket_start order by g.bucket_start) into v_missing
  from generate_series(v_first, v_closed_end - interval '5 minutes', interval '5 minutes') as g (bucket_start)
  where not exists (select 1 from pgflow.stats_buckets as b where b.bucket_start = g.bucket_start);
  if v_missing is null then
    return 0;
  end if;

  insert into pgflow.run_stats
  select c.* from pgflow._compute_run_stats(v_missing[1], v_closed_end) as c
  where c.bucket_start in (select m from unnest(v_missing) as m)
  on conflict do nothing;
  insert into pgflow.step_stats
  select c.* from pgflow._compute_step_stats(v_missing[1], v_closed_end) as c
  where c.bucket_start in (select m from unnest(v_missing) as m)
  on conflict do nothing;
  insert into pgflow.stats_buckets (bucket_start, filled_at)
  select m, v_now from unnest(v_missing) as m
  on conflict do nothing;
  return cardinality(v_missing);
end;
$$;

comment on function pgflow._fill_stats_buckets(timestamptz) is
'Writes run_stats and step_stats (every flow) for each closed 5-minute bucket from the one
holding since (timestamptz, within the last 31 days, else 22023 invalid_parameter_value)
that stats_buckets does not list yet, and lists them. A bucket is closed once it ended 2
minutes ago (a report stamped inside it has committed by then; a transaction open longer
is not counted). Returns the number of buckets written (0 when all were: no lock then).
Fillers run one at a time (advisory lock hashtext(''pgflow.stats_buckets'')); a second,
concurrent one writes nothing. Called by get_step_stats and get_run_counts. pgflow-py
extension.';


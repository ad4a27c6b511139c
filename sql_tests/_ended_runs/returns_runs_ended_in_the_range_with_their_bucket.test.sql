begin;
select plan(4);

-- SETUP: runs of flow stats_a inserted directly, ending around the 5-minute buckets t0,
-- t0 + 5 min and t0 + 10 min (t0 on the epoch's grid, two hours ago); label = input.label.
select pgflow_tests.reset_db();
select pgflow.create_flow('stats_a');
select date_bin('5 minutes', now() - interval '2 hours', timestamptz '1970-01-01 00:00:00+00') as t0 \gset
create function pg_temp.run(p_flow text, p_status text, p_started timestamptz, p_ended timestamptz, p_label text)
returns uuid language sql as $$
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at, failed_at, cancelled_at, expired_at)
  values (p_flow, p_status, jsonb_build_object('label', p_label), p_started,
          case when p_status = 'completed' then p_ended end, case when p_status = 'failed' then p_ended end,
          case when p_status = 'cancelled' then p_ended end, case when p_status = 'expired' then p_ended end)
  returning run_id
$$;
select pg_temp.run('stats_a', 'completed', :'t0'::timestamptz - interval '1 hour', :'t0'::timestamptz - interval '1 microsecond', 'before');
select pg_temp.run('stats_a', 'completed', :'t0'::timestamptz - interval '1 hour', :'t0'::timestamptz, 'at_start');
select pg_temp.run('stats_a', 'failed', :'t0'::timestamptz - interval '1 hour', :'t0'::timestamptz + interval '4 min 59.999999 s', 'end_of_first');
select pg_temp.run('stats_a', 'cancelled', :'t0'::timestamptz - interval '1 hour', :'t0'::timestamptz + interval '5 minutes', 'start_of_second');
select pg_temp.run('stats_a', 'expired', :'t0'::timestamptz - interval '1 hour', :'t0'::timestamptz + interval '12 minutes', 'third');
select pg_temp.run('stats_a', 'completed', :'t0'::timestamptz - interval '1 hour', :'t0'::timestamptz + interval '15 minutes', 'at_end');

-- TEST: range_start included, range_end excluded; each run with its final status and the
-- 5-minute bucket its end falls in
select results_eq(
  format($$select r.input ->> 'label', e.status, e.bucket_start - %L::timestamptz
           from pgflow._ended_runs(%L::timestamptz, %L::timestamptz + interval '15 minutes') as e
           join pgflow.runs as r using (run_id)
           order by coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at)$$,
         :'t0', :'t0', :'t0'),
  $$values ('at_start', 'completed', interval '0'), ('end_of_first', 'failed', interval '0'),
           ('start_of_second', 'cancelled', interval '5 minutes'), ('third', 'expired', interval '10 minutes')$$,
  'the runs ended in [t0, t0 + 15 min), bucketed on the 5-minute grid');

-- TEST: the returned columns are the run's
select results_eq(
  format($$select e.flow_slug, e.started_at, e.completed_at from pgflow._ended_runs(%L, %L::timestamptz + interval '5 minutes') as e
           order by e.completed_at nulls last$$,
         :'t0', :'t0'),
  format($$select 'stats_a'::text, %L::timestamptz - interval '1 hour', %L::timestamptz
           union all select 'stats_a'::text, %L::timestamptz - interval '1 hour', null::timestamptz$$, :'t0', :'t0', :'t0'),
  'flow_slug, started_at and completed_at as stored (NULL completed_at for a failed run)');

-- TEST: an empty range returns nothing; a range off the grid still buckets on the grid
select is_empty(
  format($$select * from pgflow._ended_runs(%L::timestamptz + interval '1 minute', %L::timestamptz + interval '4 minutes')$$, :'t0', :'t0'),
  'no run ended in [t0 + 1 min, t0 + 4 min)');
select results_eq(
  format($$select e.bucket_start - %L::timestamptz
           from pgflow._ended_runs(%L::timestamptz + interval '11 minutes', %L::timestamptz + interval '13 minutes') as e$$,
         :'t0', :'t0', :'t0'),
  $$values (interval '10 minutes')$$,
  'a run ended at t0 + 12 min is in bucket t0 + 10 min whatever the range');

select * from finish();
rollback;

begin;
select plan(6);

-- SETUP: flow stats_a; runs inserted directly; h0 = the hour (epoch grid) holding
-- now() - 3 hours, so h0 .. h0 + 2 h are closed and h0 + 3 h holds now().
--   r1 started h0 + 10 min, completed h0 + 20 min (600 s)
--   r2 started h0 + 50 min, completed h0 + 70 min (1200 s: started in h0, ended in h0 + 1 h)
--   r3 started h0 + 15 min, failed h0 + 25 min
--   r4 queued since h0 + 30 min (not started: it starts when it leaves the queue)
--   r5 started h0 + 35 min, cancelled h0 + 40 min
--   r6 started h0 + 5 min, expired h0 + 45 min
--   r7 started 2 minutes ago, completed 1 minute ago (the open part)
-- Flow stats_b: a run started and completed in h0 (never counted for stats_a).
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.create_flow('stats_b');
select date_bin('1 hour', now() - interval '3 hours', timestamptz '1970-01-01 00:00:00+00') as h0 \gset
create function pg_temp.run(p_flow text, p_status text, p_started timestamptz, p_ended timestamptz)
returns void language sql as $$
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at, failed_at, cancelled_at, expired_at, queued_at)
  values (p_flow, p_status, '{}', p_started,
          case when p_status = 'completed' then p_ended end, case when p_status = 'failed' then p_ended end,
          case when p_status = 'cancelled' then p_ended end, case when p_status = 'expired' then p_ended end,
          case when p_status = 'queued' then p_started end)
$$;
select pg_temp.run('stats_a', 'completed', :'h0'::timestamptz + interval '10 minutes', :'h0'::timestamptz + interval '20 minutes');
select pg_temp.run('stats_a', 'completed', :'h0'::timestamptz + interval '50 minutes', :'h0'::timestamptz + interval '70 minutes');
select pg_temp.run('stats_a', 'failed', :'h0'::timestamptz + interval '15 minutes', :'h0'::timestamptz + interval '25 minutes');
select pg_temp.run('stats_a', 'queued', :'h0'::timestamptz + interval '30 minutes', null);
select pg_temp.run('stats_a', 'cancelled', :'h0'::timestamptz + interval '35 minutes', :'h0'::timestamptz + interval '40 minutes');
select pg_temp.run('stats_a', 'expired', :'h0'::timestamptz + interval '5 minutes', :'h0'::timestamptz + interval '45 minutes');
select pg_temp.run('stats_a', 'completed', now() - interval '2 minutes', now() - interval '1 minute');
select pg_temp.run('stats_b', 'completed', :'h0'::timestamptz + interval '10 minutes', :'h0'::timestamptz + interval '11 minutes');

-- TEST: hourly sums: started counted in the interval of started_at (not the queued r4),
-- ended runs in the interval of their end; r7 (open part) in the interval(s) holding
-- now() - 2 min and now() - 1 min
select results_eq(
  format($$select interval_start - %L::timestamptz, started, completed, failed, cancelled, expired
           from pgflow.get_run_counts('stats_a', %L::timestamptz + interval '1 minute')$$, :'h0', :'h0'),
  format($$values (interval '0', 5::bigint, 1::bigint, 1::bigint, 1::bigint, 1::bigint),
                  (interval '1 hour', 0::bigint, 1::bigint, 0::bigint, 0::bigint, 0::bigint),
                  (interval '2 hours', %s::bigint, %s::bigint, 0::bigint, 0::bigint, 0::bigint),
                  (interval '3 hours', %s::bigint, %s::bigint, 0::bigint, 0::bigint, 0::bigint)$$,
         (date_bin('1 hour', now() - interval '2 minutes', timestamptz '1970-01-01 00:00:00+00') = :'h0'::timestamptz + interval '2 hours')::int,
         (date_bin('1 hour', now() - interval '1 minute', timestamptz '1970-01-01 00:00:00+00') = :'h0'::timestamptz + interval '2 hours')::int,
         (date_bin('1 hour', now() - interval '2 minutes', timestamptz '1970-01-01 00:00:00+00') = :'h0'::timestamptz + interval '3 hours')::int,
         (date_bin('1 hour', now() - interval '1 minute', timestamptz '1970-01-01 00:00:00+00') = :'h0'::timestamptz + interval '3 hours')::int),
  'h0: started r1 r2 r3 r5 r6 = 5, one of each end; h0 + 1 h: r2 completed; r7 in the last minutes');

-- TEST: 30-minute intervals split the same runs: r5 (h0 + 35) starts in the second half
-- hour, r2 (h0 + 50) too
select results_eq(
  format($$select interval_start - %L::timestamptz, started, completed, failed, cancelled, expired
           from pgflow.get_run_counts('stats_a', %L, 1800) limit 3$$, :'h0', :'h0'),
  $$values (interval '0', 3::bigint, 1::bigint, 1::bigint, 0::bigint, 0::bigint),
           (interval '30 minutes', 2::bigint, 0::bigint, 0::bigint, 1::bigint, 1::bigint),
           (interval '1 hour', 0::bigint, 1::bigint, 0::bigint, 0::bigint, 0::bigint)$$,
  '1800 s: [h0, +30): started r1 r3 r6, ended r1 r3; [+30, +60): started r2 r5, ended r5 r6');

-- TEST: the totals of both interval sizes agree (sums across the 5-minute buckets)
select results_eq(
  format($$select sum(started), sum(completed), sum(failed), sum(cancelled), sum(expired)
           from pgflow.get_run_counts('stats_a', %L, 1800)$$, :'h0'),
  format($$select sum(started), sum(completed), sum(failed), sum(cancelled), sum(expired)
           from pgflow.get_run_counts('stats_a', %L, 3600)$$, :'h0'),
  'same totals hourly and half-hourly');
select results_eq(
  format($$select sum(started)::int, sum(completed)::int from pgflow.get_run_counts('stats_a', %L, 300)$$, :'h0'),
  $$values (6, 3)$$,
  '6 started, 3 completed in all (5-minute intervals)');

-- TEST: p50 / p95 of the completed runs' durations of each interval: r1's 600 s in h0
-- (element 77: [524.3, 623.5) s), r2's 1200 s in h0 + 1 h (element 81: [1048.6, 1247) s)
select ok((select p50_seconds from pgflow.get_run_counts('stats_a', :'h0') where interval_start = :'h0')
            between power(2, 76 / 4.0) / 1000 and power(2, 77 / 4.0) / 1000,
  'h0: p50 in the element holding 600 s');
select ok((select p95_seconds from pgflow.get_run_counts('stats_a', :'h0') where interval_start = :'h0'::timestamptz + interval '1 hour')
            between power(2, 80 / 4.0) / 1000 and power(2, 81 / 4.0) / 1000,
  'h0 + 1 h: p95 in the element holding 1200 s');

select * from finish();
rollback;

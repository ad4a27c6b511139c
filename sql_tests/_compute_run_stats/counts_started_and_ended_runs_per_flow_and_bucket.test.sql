begin;
select plan(6);

-- SETUP: runs inserted directly around the 5-minute buckets t0, t0 + 5 min, t0 + 10 min
-- (t0 on the epoch's grid, two hours ago). Flow stats_a:
--   r1 started t0 + 1 min, completed 2 s later           (started t0, completed t0)
--   r2 started t0 - 10 min, completed t0 + 2 min (12 min) (started before the range, completed t0)
--   r3 started t0 + 6 min, failed t0 + 8 min               (started t0 + 5, failed t0 + 5)
--   r4 queued since t0 + 11 min                            (not started: a run still queued
--                                                          starts when it leaves the queue)
--   r5 started t0 + 12 min, still running                  (started t0 + 10)
--   r6 started t0 + 3 min, cancelled t0 + 13 min           (started t0, cancelled t0 + 10)
--   r7 started t0 + 4 min, expired t0 + 14 min             (started t0, expired t0 + 10)
--   r8 started t0 + 14 min, completed t0 + 15 min          (started t0 + 10, completed after the range)
-- Flow stats_b: one run started t0 + 1 min, completed t0 + 3 min.
select pgflow_tests.reset_db();
select pgflow.create_flow('stats_a');
select pgflow.create_flow('stats_b');
select date_bin('5 minutes', now() - interval '2 hours', timestamptz '1970-01-01 00:00:00+00') as t0 \gset
create function pg_temp.run(p_flow text, p_status text, p_started interval, p_ended interval)
returns uuid language sql as $$
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at, failed_at, cancelled_at, expired_at, queued_at)
  select p_flow, p_status, '{}', t0 + p_started,
         case when p_status = 'completed' then t0 + p_ended end, case when p_status = 'failed' then t0 + p_ended end,
         case when p_status = 'cancelled' then t0 + p_ended end, case when p_status = 'expired' then t0 + p_ended end,
         case when p_status = 'queued' then t0 + p_started end
  from (select date_bin('5 minutes', now() - interval '2 hours', timestamptz '1970-01-01 00:00:00+00') as t0) as a
  returning run_id
$$;
select pg_temp.run('stats_a', 'completed', '1 minute', '1 minute 2 seconds');
select pg_temp.run('stats_a', 'completed', '-10 minutes', '2 minutes');
select pg_temp.run('stats_a', 'failed', '6 minutes', '8 minutes');
select pg_temp.run('stats_a', 'queued', '11 minutes', null);
select pg_temp.run('stats_a', 'started', '12 minutes', null);
select pg_temp.run('stats_a', 'cancelled', '3 minutes', '13 minutes');
select pg_temp.run('stats_a', 'expired', '4 minutes', '14 minutes');
select pg_temp.run('stats_a', 'completed', '14 minutes', '15 minutes');
select pg_temp.run('stats_b', 'completed', '1 minute', '3 minutes');

-- TEST: per bucket of [t0, t0 + 15 min): started by started_at, ended by final status
select results_eq(
  format($$select flow_slug, bucket_start - %L::timestamptz, started, completed, failed, cancelled, expired
           from pgflow._compute_run_stats(%L, %L::timestamptz + interval '15 minutes', 'stats_a')
           order by bucket_start$$, :'t0', :'t0', :'t0'),
  $$values ('stats_a'::text, interval '0', 3, 2, 0, 0, 0),
           ('stats_a'::text, interval '5 minutes', 1, 0, 1, 0, 0),
           ('stats_a'::text, interval '10 minutes', 2, 0, 0, 1, 1)$$,
  'stats_a: started r1 r6 r7 / completed r1 r2; started r3 / failed r3; started r5 r8 (not the queued r4) / cancelled r6, expired r7');

-- TEST: the histogram holds the completed runs' durations only (2 s and 12 min in t0; the
-- failed r3 adds nothing to t0 + 5 min)
select results_eq(
  format($$select duration_histogram from pgflow._compute_run_stats(%L, %L::timestamptz + interval '15 minutes', 'stats_a')
           order by bucket_start$$, :'t0', :'t0'),
  $$values (pgflow._duration_histogram(array[2, 720]::float8[])), ('{}'::int[]), ('{}'::int[])$$,
  'histogram of 2 s and 720 s in t0, {} where nothing completed');

-- TEST: range_end is excluded, range_start included: r8's completion at t0 + 15 min counts in
-- the next range only; a range that starts at t0 + 5 min has no t0 row
select results_eq(
  format($$select bucket_start - %L::timestamptz, started, completed
           from pgflow._compute_run_stats(%L::timestamptz + interval '5 minutes', %L::timestamptz + interval '20 minutes', 'stats_a')
           order by bucket_start$$, :'t0', :'t0', :'t0'),
  $$values (interval '5 minutes', 1, 0), (interval '10 minutes', 2, 0), (interval '15 minutes', 0, 1)$$,
  '[t0 + 5, t0 + 20 min): r8 completed in t0 + 15 min, no t0 row');

-- TEST: a bucket with no activity has no row
select is_empty(
  format($$select * from pgflow._compute_run_stats(%L::timestamptz - interval '5 minutes', %L, 'stats_a')$$, :'t0', :'t0'),
  'nothing started or ended in t0 - 5 min: no row (r2 started in t0 - 10 min, outside the range)');

-- TEST: only_flow NULL -> every flow, each with its own rows
select results_eq(
  format($$select flow_slug, bucket_start - %L::timestamptz, started, completed
           from pgflow._compute_run_stats(%L, %L::timestamptz + interval '15 minutes')
           order by flow_slug, bucket_start$$, :'t0', :'t0', :'t0'),
  $$values ('stats_a'::text, interval '0', 3, 2), ('stats_a'::text, interval '5 minutes', 1, 0),
           ('stats_a'::text, interval '10 minutes', 2, 0), ('stats_b'::text, interval '0', 1, 1)$$,
  'both flows when only_flow is NULL');
select results_eq(
  format($$select flow_slug, started, completed from pgflow._compute_run_stats(%L, %L::timestamptz + interval '15 minutes', 'stats_b')$$,
         :'t0', :'t0'),
  $$values ('stats_b'::text, 1, 1)$$,
  'only_flow stats_b: its one row');

select * from finish();
rollback;

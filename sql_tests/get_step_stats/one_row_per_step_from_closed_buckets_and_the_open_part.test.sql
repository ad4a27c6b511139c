begin;
select plan(10);

-- SETUP: flow stats_a with steps zeta, alpha, mid (step order differs from the alphabet);
-- runs, step states and tasks inserted directly. t0 on the 5-minute grid one hour ago.
--   run 1 completed t0 + 1 min (a closed bucket): zeta completed, alpha completed in 2 s
--   run 2 failed 1 minute ago (the open part): zeta failed after 2 attempts, alpha
--        completed in 4 s on its 3rd attempt
--   run 3 completed 3 hours ago (before since): zeta and alpha completed
--   run 4 completed t0 + 2 min: zeta completed, alpha skipped
--   run 5 cancelled t0 + 3 min: zeta completed, alpha cancelled
-- No run has a state for mid.
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 'zeta');
select pgflow.add_step('stats_a', 'alpha', array['zeta']);
select pgflow.add_step('stats_a', 'mid', array['alpha']);
select date_bin('5 minutes', now() - interval '1 hour', timestamptz '1970-01-01 00:00:00+00') as t0 \gset
create function pg_temp.run(p_status text, p_ended timestamptz)
returns uuid language sql as $$
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at, failed_at, cancelled_at)
  values ('stats_a', p_status, '{}', p_ended - interval '1 minute',
          case when p_status = 'completed' then p_ended end, case when p_status = 'failed' then p_ended end,
          case when p_status = 'cancelled' then p_ended end)
  returning run_id
$$;
create function pg_temp.step(p_run uuid, p_step text, p_status text, p_seconds float8, p_attempts int)
returns void language sql as $$
  insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks, created_at, started_at,
                                  completed_at, failed_at, skipped_at, skip_reason, cancelled_at)
  select r.flow_slug, r.run_id, p_step, p_status, case when p_status in ('completed', 'failed') then 0 end,
         r.started_at, r.started_at,
         case when p_status = 'completed' then r.started_at + make_interval(secs => p_seconds) end,
         case when p_status = 'failed' then r.started_at + make_interval(secs => p_seconds) end,
         case when p_status = 'skipped' then r.started_at end,
         case when p_status = 'skipped' then 'condition_unmet' end,
         case when p_status = 'cancelled' then r.started_at end
  from pgflow.runs as r where r.run_id = p_run;
  insert into pgflow.step_tasks (flow_slug, run_id, step_slug, status, attempts_count, queued_at, started_at,
                                 completed_at, failed_at)
  select r.flow_slug, r.run_id, p_step, p_status, p_attempts, r.started_at, r.started_at,
         case when p_status = 'completed' then r.started_at + make_interval(secs => p_seconds) end,
         case when p_status = 'failed' then r.started_at + make_interval(secs => p_seconds) end
  from pgflow.runs as r where r.run_id = p_run and p_status in ('completed', 'failed');
$$;
select pg_temp.run('completed', :'t0'::timestamptz + interval '1 minute') as run1 \gset
select pg_temp.step(:'run1', 'zeta', 'completed', 1, 1);
select pg_temp.step(:'run1', 'alpha', 'completed', 2, 1);
select pg_temp.run('failed', now() - interval '1 minute') as run2 \gset
select pg_temp.step(:'run2', 'zeta', 'failed', 1, 2);
select pg_temp.step(:'run2', 'alpha', 'completed', 4, 3);
select pg_temp.run('completed', now() - interval '3 hours') as run3 \gset
select pg_temp.step(:'run3', 'zeta', 'completed', 1, 1);
select pg_temp.step(:'run3', 'alpha', 'completed', 1, 1);
select pg_temp.run('completed', :'t0'::timestamptz + interval '2 minutes') as run4 \gset
select pg_temp.step(:'run4', 'zeta', 'completed', 1, 1);
select pg_temp.step(:'run4', 'alpha', 'skipped', null, 1);
select pg_temp.run('cancelled', :'t0'::timestamptz + interval '3 minutes') as run5 \gset
select pg_temp.step(:'run5', 'zeta', 'completed', 1, 1);
select pg_temp.step(:'run5', 'alpha', 'cancelled', null, 1);

-- TEST: one row per step, in step order; counts = closed buckets (runs 1, 4, 5) + the open
-- part (run 2, ended 1 minute ago); run 3 ended before since
select results_eq(
  format($$select step_slug, completed, failed, skipped, cancelled, retried
           from pgflow.get_step_stats('stats_a', %L::timestamptz)$$, :'t0'),
  $$values ('zeta'::text, 3::bigint, 1::bigint, 0::bigint, 0::bigint, 1::bigint),
           ('alpha'::text, 2::bigint, 0::bigint, 1::bigint, 1::bigint, 1::bigint),
           ('mid'::text, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint)$$,
  'zeta: 3 completed, 1 failed (retried); alpha: 2 completed (1 retried), 1 skipped, 1 cancelled; mid: zeros');

-- TEST: failure_rate = failed / (completed + failed), retry_rate = retried / (completed +
-- failed); NULL for a step with none finished
select results_eq(
  format($$select step_slug, failure_rate, retry_rate from pgflow.get_step_stats('stats_a', %L::timestamptz)$$, :'t0'),
  $$values ('zeta'::text, 0.25::float8, 0.25::float8), ('alpha'::text, 0::float8, 0.5::float8),
           ('mid'::text, null::float8, null::float8)$$,
  'zeta 1/4 and 1/4, alpha 0/2 and 1/2, mid NULL and NULL');

-- TEST: p50 / p95 from the completed durations, within the bounds of their histogram
-- element: alpha's 2 s (element 44: [1.722, 2.048) s) and 4 s (element 48: [3.444, 4.096) s)
select ok((select p50_seconds from pgflow.get_step_stats('stats_a', :'t0') where step_slug = 'alpha')
            between power(2, 43 / 4.0) / 1000 and power(2, 44 / 4.0) / 1000,
  'alpha p50 in the element holding 2 s');
select ok((select p95_seconds from pgflow.get_step_stats('stats_a', :'t0') where step_slug = 'alpha')
            between power(2, 47 / 4.0) / 1000 and power(2, 48 / 4.0) / 1000,
  'alpha p95 in the element holding 4 s');
select ok((select p50_seconds from pgflow.get_step_stats('stats_a', :'t0') where step_slug = 'zeta')
            between power(2, 39 / 4.0) / 1000 and power(2, 40 / 4.0) / 1000,
  'zeta p50 in the element holding 1 s');
select results_eq(
  format($$select p50_seconds, p95_seconds from pgflow.get_step_stats('stats_a', %L) where step_slug = 'mid'$$, :'t0'),
  $$values (null::float8, null::float8)$$, 'mid: NULL quantiles');

-- TEST: the closed buckets were written to step_stats (from the bucket of since on), the
-- open part was not
select results_eq(
  'select step_slug, bucket_start, completed, failed, skipped, cancelled from pgflow.step_stats order by step_slug',
  format($$values ('alpha'::text, %L::timestamptz, 1, 0, 1, 1), ('zeta'::text, %L::timestamptz, 3, 0, 0, 0)$$, :'t0', :'t0'),
  'one step_stats row per step for bucket t0; nothing for run 2');
select is((select count(*)::int from pgflow.stats_buckets where bucket_start >= pgflow._stats_closed_end()), 0,
  'no open bucket listed');

-- TEST: since is rounded down to the 5-minute grid: since t0 + 4 min still covers runs 1, 4, 5
select results_eq(
  format($$select step_slug, completed from pgflow.get_step_stats('stats_a', %L::timestamptz + interval '4 minutes')$$, :'t0'),
  $$values ('zeta'::text, 3::bigint), ('alpha'::text, 2::bigint), ('mid'::text, 0::bigint)$$,
  'same counts from t0 + 4 min');

-- TEST: since in the open part: only run 2 (ended 1 minute ago) is counted
select results_eq(
  $$select step_slug, completed, failed from pgflow.get_step_stats('stats_a', now() - interval '90 seconds')$$,
  $$values ('zeta'::text, 0::bigint, 1::bigint), ('alpha'::text, 1::bigint, 0::bigint), ('mid'::text, 0::bigint, 0::bigint)$$,
  'since 90 s ago: run 2 only');

select * from finish();
rollback;

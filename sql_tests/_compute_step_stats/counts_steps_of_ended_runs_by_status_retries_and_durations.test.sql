begin;
select plan(6);

-- SETUP: flow stats_a (s1 -> s2 -> s3) and flow stats_b (b1); runs, step states and tasks
-- inserted directly, times relative to t0 (the 5-minute grid, two hours ago).
-- pg_temp.step(run, step, status, started, ended, attempts): one task per element of
-- attempts with that attempts_count (none for a taskless step).
select pgflow_tests.reset_db();
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 's1');
select pgflow.add_step('stats_a', 's2', array['s1']);
select pgflow.add_step('stats_a', 's3', array['s2']);
select pgflow.create_flow('stats_b');
select pgflow.add_step('stats_b', 'b1');
select date_bin('5 minutes', now() - interval '2 hours', timestamptz '1970-01-01 00:00:00+00') as t0 \gset
create function pg_temp.t0() returns timestamptz language sql as $$
  select date_bin('5 minutes', now() - interval '2 hours', timestamptz '1970-01-01 00:00:00+00')
$$;
create function pg_temp.run(p_flow text, p_status text, p_started interval, p_ended interval)
returns uuid language sql as $$
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at, failed_at, cancelled_at)
  values (p_flow, p_status, '{}', pg_temp.t0() + p_started,
          case when p_status = 'completed' then pg_temp.t0() + p_ended end,
          case when p_status = 'failed' then pg_temp.t0() + p_ended end,
          case when p_status = 'cancelled' then pg_temp.t0() + p_ended end)
  returning run_id
$$;
create function pg_temp.step(p_run uuid, p_step text, p_status text, p_started interval, p_ended interval, p_attempts int[])
returns void language sql as $$
  insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks, created_at, started_at,
                                  completed_at, failed_at, skipped_at, skip_reason, cancelled_at)
  select r.flow_slug, p_run, p_step, p_status, case when p_status in ('completed', 'failed') then 0 end,
         pg_temp.t0() + coalesce(p_started, p_ended) - interval '1 second', pg_temp.t0() + p_started,
         case when p_status = 'completed' then pg_temp.t0() + p_ended end,
         case when p_status = 'failed' then pg_temp.t0() + p_ended end,
         case when p_status = 'skipped' then pg_temp.t0() + p_ended end,
         case when p_status = 'skipped' then 'condition_unmet' end,
         case when p_status = 'cancelled' then pg_temp.t0() + p_ended end
  from pgflow.runs as r where r.run_id = p_run;
  insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, status, attempts_count, queued_at,
                                 started_at, completed_at, failed_at, cancelled_at)
  select r.flow_slug, p_run, p_step, a.i::int - 1,
         case when p_status in ('completed', 'failed') then p_status else 'cancelled' end, a.n,
         pg_temp.t0() + coalesce(p_started, p_ended) - interval '1 second', pg_temp.t0() + p_started,
         case when p_status = 'completed' then pg_temp.t0() + p_ended end,
         case when p_status = 'failed' then pg_temp.t0() + p_ended end,
         case when p_status not in ('completed', 'failed') then pg_temp.t0() + p_ended end
  from pgflow.runs as r, unnest(p_attempts) with ordinality as a (n, i)
  where r.run_id = p_run;
$$;
-- run A completed t0 + 1 min: s1 completed in 2 s, s2 completed in 5 s on its 2nd attempt,
-- s3 skipped
select pg_temp.run('stats_a', 'completed', '0', '1 minute') as run_a \gset
select pg_temp.step(:'run_a', 's1', 'completed', '10 seconds', '12 seconds', '{1}');
select pg_temp.step(:'run_a', 's2', 'completed', '20 seconds', '25 seconds', '{2}');
select pg_temp.step(:'run_a', 's3', 'skipped', null, '30 seconds', '{}');
-- run B failed t0 + 2 min: s1 completed in 3 s, s2 failed after 3 attempts, s3 cancelled
-- (its task had been attempted twice: a cancelled step is not counted as retried)
select pg_temp.run('stats_a', 'failed', '0', '2 minutes') as run_b \gset
select pg_temp.step(:'run_b', 's1', 'completed', '10 seconds', '13 seconds', '{1}');
select pg_temp.step(:'run_b', 's2', 'failed', '20 seconds', '2 minutes', '{3}');
select pg_temp.step(:'run_b', 's3', 'cancelled', '30 seconds', '2 minutes', '{2}');
-- run C started t0 + 4 min, completed t0 + 6 min (bucket t0 + 5): s1 completed in 1 s
-- inside bucket t0, s2 (two tasks, both attempted twice: one retried step) completed in 4 s,
-- s3 completed without a start (taskless)
select pg_temp.run('stats_a', 'completed', '4 minutes', '6 minutes') as run_c \gset
select pg_temp.step(:'run_c', 's1', 'completed', '4 minutes 10 seconds', '4 minutes 11 seconds', '{1}');
select pg_temp.step(:'run_c', 's2', 'completed', '5 minutes 20 seconds', '5 minutes 24 seconds', '{2,2}');
select pg_temp.step(:'run_c', 's3', 'completed', null, '5 minutes 30 seconds', '{}');
-- run D still running: s1 completed (not counted: its run has not ended)
select pg_temp.run('stats_a', 'started', '0', null) as run_d \gset
select pg_temp.step(:'run_d', 's1', 'completed', '10 seconds', '11 seconds', '{1}');
-- run E completed t0 + 15 min (outside [t0, t0 + 15 min))
select pg_temp.run('stats_a', 'completed', '14 minutes', '15 minutes') as run_e \gset
select pg_temp.step(:'run_e', 's1', 'completed', '14 minutes 10 seconds', '14 minutes 11 seconds', '{1}');
-- flow stats_b: one run completed t0 + 1 min
select pg_temp.run('stats_b', 'completed', '0', '1 minute') as run_f \gset
select pg_temp.step(:'run_f', 'b1', 'completed', '10 seconds', '11 seconds', '{1}');

-- TEST: per step and bucket: final statuses; retried = completed or failed steps with a
-- task attempted more than once (counted once per step)
select results_eq(
  format($$select step_slug, bucket_start - %L::timestamptz, completed, failed, skipped, cancelled, retried
           from pgflow._compute_step_stats(%L, %L::timestamptz + interval '15 minutes', 'stats_a')
           order by bucket_start, step_slug$$, :'t0', :'t0', :'t0'),
  $$values ('s1'::text, interval '0', 2, 0, 0, 0, 0),
           ('s2'::text, interval '0', 1, 1, 0, 0, 2),
           ('s3'::text, interval '0', 0, 0, 1, 1, 0),
           ('s1'::text, interval '5 minutes', 1, 0, 0, 0, 0),
           ('s2'::text, interval '5 minutes', 1, 0, 0, 0, 1),
           ('s3'::text, interval '5 minutes', 1, 0, 0, 0, 0)$$,
  'runs A and B in t0, run C in t0 + 5 min (its run''s end, not its steps'', decides); runs D (running) and E (ended at range_end) left out');

-- TEST: the histogram holds the completed steps' durations (started_at -> completed_at);
-- failed, skipped, cancelled and never-started steps add nothing
select results_eq(
  format($$select step_slug, duration_histogram
           from pgflow._compute_step_stats(%L, %L::timestamptz + interval '15 minutes', 'stats_a')
           order by bucket_start, step_slug$$, :'t0', :'t0'),
  $$values ('s1'::text, pgflow._duration_histogram(array[2, 3]::float8[])),
           ('s2'::text, pgflow._duration_histogram(array[5]::float8[])),
           ('s3'::text, '{}'::int[]),
           ('s1'::text, pgflow._duration_histogram(array[1]::float8[])),
           ('s2'::text, pgflow._duration_histogram(array[4]::float8[])),
           ('s3'::text, '{}'::int[])$$,
  's1: 2 s and 3 s; s2: 5 s (the failed one left out), then 4 s; s3: nothing');
select is(
  (select sum(n)::int from pgflow._compute_step_stats(:'t0', :'t0'::timestamptz + interval '15 minutes', 'stats_a') as c,
          unnest(c.duration_histogram) as n),
  5, 'five completed step durations in all (s1 x3, s2 x2; not the taskless s3)');

-- TEST: range_end is excluded: run E (ended t0 + 15 min) counts in the next range
select results_eq(
  format($$select step_slug, bucket_start - %L::timestamptz, completed
           from pgflow._compute_step_stats(%L::timestamptz + interval '15 minutes', %L::timestamptz + interval '20 minutes', 'stats_a')$$,
         :'t0', :'t0', :'t0'),
  $$values ('s1'::text, interval '15 minutes', 1)$$,
  'run E counts in t0 + 15 min');

-- TEST: only_flow NULL -> every flow; only_flow stats_b -> its step only
select results_eq(
  format($$select flow_slug, step_slug, completed from pgflow._compute_step_stats(%L, %L::timestamptz + interval '5 minutes')
           order by flow_slug, step_slug$$, :'t0', :'t0'),
  $$values ('stats_a'::text, 's1'::text, 2), ('stats_a'::text, 's2'::text, 1), ('stats_a'::text, 's3'::text, 0),
           ('stats_b'::text, 'b1'::text, 1)$$,
  'both flows in t0 when only_flow is NULL');
select results_eq(
  format($$select flow_slug, step_slug, completed from pgflow._compute_step_stats(%L, %L::timestamptz + interval '15 minutes', 'stats_b')$$,
         :'t0', :'t0'),
  $$values ('stats_b'::text, 'b1'::text, 1)$$,
  'only_flow stats_b');

select * from finish();
rollback;

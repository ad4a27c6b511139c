-- _compute_step_stats: step outcomes and durations per flow, step and 5-minute bucket.

create function pgflow._compute_step_stats(range_start timestamptz, range_end timestamptz, only_flow text default null)
returns setof pgflow.step_stats
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select s.flow_slug, s.step_slug, e.bucket_start,
         count(*) filter (where s.status = 'completed')::int,
         count(*) filter (where s.status = 'failed')::int,
         count(*) filter (where s.status = 'skipped')::int,
         count(*) filter (where s.status = 'cancelled')::int,
         count(*) filter (
           where s.status in ('completed', 'failed') and exists (
             select 1 from pgflow.step_tasks as t
             where t.run_id = s.run_id and t.step_slug = s.step_slug and t.attempts_count > 1
           )
         )::int,
         pgflow._duration_histogram(array_agg(
             extract(epoch from s.completed_at - s.started_at)::double precision
           ) filter (where s.status = 'completed' and s.started_at is not null))
  from pgflow._ended_runs(_compute_step_stats.range_start, _compute_step_stats.range_end,
                          _compute_step_stats.only_flow) as e
  join pgflow.step_states as s on s.run_id = e.run_id
  group by s.flow_slug, s.step_slug, e.bucket_start
$$;

comment on function pgflow._compute_step_stats(timestamptz, timestamptz, text) is
'The step_stats rows of the 5-minute buckets from range_start to range_end (on the bucket
grid; range_end excluded), for only_flow or every flow (NULL): the steps of the runs that
ended in each bucket by final status, how many completed or failed steps had a task
attempted more than once, and the histogram of the completed steps'' durations
(started_at -> completed_at). Computed from runs, step_states and step_tasks, writes
nothing. Used by _fill_stats_buckets and get_step_stats. pgflow-py extension.';


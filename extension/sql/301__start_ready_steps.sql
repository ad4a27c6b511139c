-- _start_ready_steps: start every ready step of the given runs and queue its tasks (the one
-- implementation of "a step starts").

create function pgflow._start_ready_steps(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_run_ids uuid[];
  v_step_slugs text[];
begin
  -- MUTATE: ready steps (created, no pending dependency, known non-zero task count) of
  -- started runs become started. No separate FOR UPDATE: the UPDATE locks the rows and
  -- re-checks them if a concurrent transaction changed them meanwhile; callers hold the
  -- run rows.
  with started as (
    update pgflow.step_states as ss
    set status = 'started',
        started_at = v_now,
        remaining_tasks = ss.initial_tasks
    from pgflow.runs as r
    where ss.run_id = any(_start_ready_steps.run_ids)
      and r.run_id = ss.run_id
      and r.status is not distinct from 'started'
      and ss.status = 'created'
      and ss.remaining_deps = 0
      and ss.initial_tasks > 0
      -- (a step that waits goes to waiting first, _settle_waits; this is a safety net)
      and not exists (
        select 1 from pgflow.step_waits as w
        where w.flow_slug = ss.flow_slug and w.step_slug = ss.step_slug
      )
    returning ss.run_id, ss.step_slug
  )
  select array_agg(st.run_id), array_agg(st.step_slug) into v_run_ids, v_step_slugs
  from started as st;
  if v_run_ids is null then
    return;
  end if;
  perform pgflow._queue_started_steps(v_run_ids, v_step_slugs);
end;
$$;

comment on function pgflow._start_ready_steps(uuid[]) is
'Starts, in every started run of run_ids (uuid[]), each step that is created, has no
unfinished dependency and a known task count > 0: status started, started_at now,
remaining_tasks = initial_tasks; then _queue_started_steps (events, step:started
broadcasts, tasks queued). A fixed number of statements whatever the
number of runs. Evaluates no condition and leaves taskless steps alone (_advance_runs
runs _cascade first). Runs that are not started and steps not ready are left as they are,
so a repeated call starts nothing. Callers hold the run rows (lock order run ->
step_state -> step_task). pgflow-py internal; start_ready_steps is its single-run form.';

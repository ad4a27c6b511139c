-- _start_ready_steps: start every ready step of the given runs and queue its tasks (the one
-- implementation of "a step starts").

create function pgflow._start_ready_steps(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_ids uuid[];
  v_step_slugs text[];
  v_group record;
begin
  -- MUTATE: ready steps (created, no pending dependency, known non-zero task count) of
  -- started runs become started. No separate FOR UPDATE: the UPDATE locks the rows and
  -- re-checks them if a concurrent transaction changed them meanwhile; callers hold the
  -- run rows.
  with started as (
    update pgflow.step_states as ss
    set status = 'started',
        started_at = now(),
        remaining_tasks = ss.initial_tasks
    from pgflow.runs as r
    where ss.run_id = any(_start_ready_steps.run_ids)
      and r.run_id = ss.run_id
      and r.status is not distinct from 'started'
      and ss.status = 'created'
      and ss.remaining_deps = 0
      and ss.initial_tasks > 0
    returning ss.run_id, ss.step_slug
  )
  select array_agg(st.run_id), array_agg(st.step_slug) into v_run_ids, v_step_slugs
  from started as st;
  if v_run_ids is null then
    return;
  end if;
  perform pgflow._record_events(array['step:started'], v_run_ids, v_step_slugs);

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(ss.run_id, 'step:' || ss.step_slug || ':started',
      jsonb_build_object(
        'event_type', 'step:started',
        'run_id', ss.run_id,
        'step_slug', ss.step_slug,
        'status', 'started',
        'started_at', ss.started_at,
        'remaining_tasks', ss.initial_tasks,
        'remaining_deps', ss.remaining_deps
      ))
    from unnest(v_run_ids, v_step_slugs) as k (run_id, step_slug)
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    order by ss.run_id, s.step_index;
  end if;

  -- QUEUE: one send_batch per flow and start delay (seconds), groups in step_index order,
  -- messages ordered by run, step_index and task_index.
  for v_group in
    select
      ss.flow_slug,
      coalesce(s.opt_start_delay, 0) as start_delay,
      array_agg(ss.run_id order by ss.run_id, s.step_index) as run_ids,
      array_agg(ss.step_slug order by ss.run_id, s.step_index) as step_slugs,
      array_agg(ss.initial_tasks order by ss.run_id, s.step_index) as task_counts
    from unnest(v_run_ids, v_step_slugs) as k (run_id, step_slug)
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    group by ss.flow_slug, coalesce(s.opt_start_delay, 0)
    order by min(s.step_index), ss.flow_slug
  loop
    perform pgflow._queue_step_tasks(v_group.flow_slug, v_group.start_delay, v_group.run_ids,
                                     v_group.step_slugs, v_group.task_counts);
  end loop;
end;
$$;

comment on function pgflow._start_ready_steps(uuid[]) is
'Starts, in every started run of run_ids (uuid[]), each step that is created, has no
unfinished dependency and a known task count > 0: status started, started_at now,
remaining_tasks = initial_tasks; broadcasts step:started per step (run, then step_index
order) when realtime is on; then queues their tasks through _queue_step_tasks, one
send_batch per flow and start delay (seconds). A fixed number of statements whatever the
number of runs. Evaluates no condition and leaves taskless steps alone (_advance_runs
runs _cascade first). Runs that are not started and steps not ready are left as they are,
so a repeated call starts nothing. Callers hold the run rows (lock order run ->
step_state -> step_task). pgflow-py internal; start_ready_steps is its single-run form.';

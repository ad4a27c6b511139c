-- _queue_started_steps: steps that just became started are recorded, broadcast and get their
-- tasks queued (the second half of "a step starts", shared by ready steps and woken waits).

create function pgflow._queue_started_steps(run_ids uuid[], step_slugs text[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_ids uuid[] := _queue_started_steps.run_ids;
  v_step_slugs text[] := _queue_started_steps.step_slugs;
  v_group record;
begin
  if coalesce(cardinality(v_run_ids), 0) = 0 then
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
      array_agg(ss.initial_tasks order by ss.run_id, s.step_index) as task_counts,
      bool_or(s.step_type = 'map') as maps
    from unnest(v_run_ids, v_step_slugs) as k (run_id, step_slug)
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    group by ss.flow_slug, coalesce(s.opt_start_delay, 0)
    order by min(s.step_index), ss.flow_slug
  loop
    perform pgflow._queue_step_tasks(v_group.flow_slug, v_group.start_delay, v_group.run_ids,
                                     v_group.step_slugs, v_group.task_counts, v_group.maps);
  end loop;
end;
$$;

comment on function pgflow._queue_started_steps(uuid[], text[]) is
'For each step (run_ids[i], step_slugs[i]) that its caller has just made started (status
started, started_at, remaining_tasks = initial_tasks): records step:started, broadcasts
step:started per step (run, then step_index order) when realtime is on, and queues its
tasks through _queue_step_tasks, one send_batch per flow and start delay (seconds). Must be
called once per start (a second call for the same step raises unique_violation on step_tasks_pkey and writes
nothing): callers pass the rows
their own UPDATE changed. pgflow-py internal, used by _start_ready_steps and
_resolve_waits.';

-- cascade_complete_taskless_steps: complete steps that have zero tasks (empty maps).

create function pgflow.cascade_complete_taskless_steps(run_id uuid)
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_realtime boolean := pgflow._realtime_enabled();
  v_total int := 0;
  v_done int;
  v_rounds int := 0;
  v_slugs text[];
begin
  loop
    v_rounds := v_rounds + 1;
    if v_rounds > 1000 then
      raise exception 'pgflow.cascade_complete_taskless_steps: run % did not settle after 1000 rounds',
        cascade_complete_taskless_steps.run_id;
    end if;

    -- MUTATE: every created step with no pending dependency and zero tasks completes now;
    -- a map completes with [], a single step (never taskless in practice) with NULL. Then
    -- the usual bookkeeping: the run loses them, their dependents are released (a
    -- dependent map of a taskless parent has nothing to map: 0 tasks).
    with done as (
      update pgflow.step_states as ss
      set status = 'completed',
          started_at = v_now,
          completed_at = v_now,
          remaining_tasks = 0,
          output = case when s.step_type = 'map' then '[]'::jsonb end
      from pgflow.steps as s
      where ss.run_id = cascade_complete_taskless_steps.run_id
        and ss.status = 'created'
        and ss.remaining_deps = 0
        and ss.initial_tasks = 0
        and s.flow_slug = ss.flow_slug
        and s.step_slug = ss.step_slug
      returning ss.step_slug, s.step_index
    )
    select count(*)::int, array_agg(done.step_slug order by done.step_index)
    into v_done, v_slugs
    from done;

    exit when v_done = 0;
    v_total := v_total + v_done;
    perform pgflow._record_events(array['step:completed'],
      array_fill(cascade_complete_taskless_steps.run_id, array[v_done]), v_slugs);
    perform pgflow._release_dependents(
      array_fill(cascade_complete_taskless_steps.run_id, array[v_done]), v_slugs);

    if v_realtime then
      perform pgflow._broadcast(cascade_complete_taskless_steps.run_id, 'step:' || ss.step_slug || ':completed',
        jsonb_build_object(
          'event_type', 'step:completed',
          'run_id', ss.run_id,
          'step_slug', ss.step_slug,
          'status', 'completed',
          'output', ss.output,
          'started_at', ss.started_at,
          'completed_at', ss.completed_at,
          'remaining_tasks', 0,
          'remaining_deps', 0
        ))
      from unnest(v_slugs) with ordinality as u (slug, ord)
      join pgflow.step_states as ss
        on ss.run_id = cascade_complete_taskless_steps.run_id and ss.step_slug = u.slug
      order by u.ord;
    end if;
  end loop;
  return v_total;
end;
$$;

comment on function pgflow.cascade_complete_taskless_steps(uuid) is
'Completes, round after round, every step of run run_id that is created with no pending
dependency and zero tasks (an empty root map, or a dependent map whose parent produced []
or was skipped): status completed, output [] for maps, remaining_tasks 0. Each round
decrements remaining_deps of the dependents, gives dependent maps 0 tasks, and decrements
runs.remaining_steps; it does not finalise the run (maybe_complete_run does). Broadcasts
step:completed per step in step_index order. Returns the number of steps completed.
Raises after 1000 rounds (safety cap). As upstream pgflow 0.14.1.';

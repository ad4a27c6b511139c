-- _complete_steps: what follows from steps that have just completed: a map's output, the
-- events, the dependents released and the runs moved forward.

create function pgflow._complete_steps(
  run_ids uuid[], step_slugs text[], ords int[] default null, maps boolean default null
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if coalesce(cardinality(_complete_steps.run_ids), 0) = 0 then
    return;
  end if;

  -- MUTATE: a completed map step's output is its task outputs in task_index order (the
  -- caller's statement that completed the step could not see its own task updates). Not
  -- run when the caller knows that no map step is among them (maps false).
  if _complete_steps.maps is distinct from false then
    update pgflow.step_states as ss
    set output = (
      select jsonb_agg(t.output order by t.task_index)
      from pgflow.step_tasks as t
      where t.run_id = ss.run_id and t.step_slug = ss.step_slug
    )
    from unnest(_complete_steps.run_ids, _complete_steps.step_slugs) as k (run_id, step_slug),
         pgflow.steps as s
    where ss.run_id = k.run_id and ss.step_slug = k.step_slug
      and s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug and s.step_type = 'map'
      and ss.status = 'completed';
  end if;

  perform pgflow._record_events(array['step:completed'], _complete_steps.run_ids, _complete_steps.step_slugs);
  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(ss.run_id, 'step:' || ss.step_slug || ':completed',
      jsonb_build_object(
        'event_type', 'step:completed',
        'run_id', ss.run_id,
        'step_slug', ss.step_slug,
        'status', 'completed',
        'output', ss.output,
        'completed_at', ss.completed_at
      ))
    from unnest(_complete_steps.run_ids, _complete_steps.step_slugs, _complete_steps.ords)
      with ordinality as k (run_id, step_slug, ord, pos)
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    order by coalesce(k.ord, k.pos);
  end if;

  -- CASCADE: the runs count their steps off (a run with none left completes) and
  -- dependents are released; then, unless that was all (every run completed, nothing
  -- depends on these steps), the runs move forward (conditions, empty maps, ready steps
  -- start).
  if pgflow._release_dependents(_complete_steps.run_ids, _complete_steps.step_slugs,
                                complete_runs => true) then
    perform pgflow._advance_runs(_complete_steps.run_ids);
  end if;
end;
$$;

comment on function pgflow._complete_steps(uuid[], text[], int[], boolean) is
'What follows from steps that have just completed: (run_ids[i], step_slugs[i]) is a step that
the caller has just set completed (status, completed_at, remaining_tasks 0 and, for a single
step, its output), first reported at position ords[i] of the call (ords NULL: i). A map step
gets its output, the task outputs in task_index order (whatever the caller set; maps false:
the caller knows none of them is a map step, and nothing is looked up); step:completed is
recorded for each and broadcast (in ords order) when realtime is on; the runs count them off
and dependents are released (_release_dependents, which completes a run with no step left)
and, when that may have made something ready, the runs move forward (_advance_runs). Must be
called exactly once per completed step (a second call would release its dependents twice):
_complete_tasks calls it for the steps its own UPDATE completed. Empty or NULL arrays do
nothing. The caller holds the run rows. pgflow-py internal.';

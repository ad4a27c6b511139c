-- _complete_step_cascade: what follows a step completing with tasks.

create function pgflow._complete_step_cascade(state pgflow.step_states, step pgflow.steps)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Each dependent loses a pending parent. A dependent map learns its task count now:
  -- from a parent map, the parent's task count; from a single parent, the length of its
  -- array output (left NULL otherwise; complete_task rejects non-arrays beforehand).
  update pgflow.step_states as ss
  set remaining_deps = ss.remaining_deps - 1,
      initial_tasks = case
        when cs.step_type = 'map' and ss.initial_tasks is null then
          case
            when (step).step_type = 'map' then (state).initial_tasks
            when jsonb_typeof((state).output) = 'array' then jsonb_array_length((state).output)
          end
        else ss.initial_tasks
      end
  from pgflow.deps as d
  join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
  where d.flow_slug = (step).flow_slug
    and d.dep_slug = (step).step_slug
    and ss.run_id = (state).run_id
    and ss.step_slug = d.step_slug
    and ss.status = 'created';

  update pgflow.runs as r
  set remaining_steps = r.remaining_steps - 1
  where r.run_id = (state).run_id;

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast((state).run_id, 'step:' || (state).step_slug || ':completed',
      jsonb_build_object(
        'event_type', 'step:completed',
        'run_id', (state).run_id,
        'step_slug', (state).step_slug,
        'status', 'completed',
        'output', (state).output,
        'completed_at', (state).completed_at
      ));
  end if;

  if pgflow._cascade((state).run_id) then
    perform pgflow.start_ready_steps((state).run_id);
    perform pgflow.maybe_complete_run((state).run_id);
  end if;
end;
$$;

comment on function pgflow._complete_step_cascade(pgflow.step_states, pgflow.steps) is
'Runs after step (state, step) completed in complete_task, with the run and step_state
rows locked: releases the dependents (remaining_deps - 1, task count of dependent maps),
decrements runs.remaining_steps, broadcasts step:completed, then conditions and the
empty-map cascade (_cascade), start_ready_steps and maybe_complete_run.';

-- _advance_runs: after a change, move runs forward: conditions and taskless steps, then ready
-- steps start, then runs with nothing left complete (the one implementation of "settle a run").

create function pgflow._advance_runs(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_id uuid;
  v_cascade uuid[];
  v_ready boolean;
  v_done boolean;
begin
  -- What each run needs, in one read (the caller holds the run rows, so it holds until the
  -- calls below): CASCADE, only where it can change something: a started run with a ready
  -- step (created, no pending dependency) that has a condition or no task (an empty map),
  -- or, in a flow with wait steps, a ready step or a waiting one (a signal or a deadline may
  -- end its wait; _resolve_waits checks). START, only when some run has a ready step;
  -- COMPLETE, only when some run has no remaining step: a statement that would change
  -- nothing is not run at all (each UPDATE costs its set-up, most of a report's time).
  select array_agg(f.run_id order by f.run_id) filter (where f.cascade),
         coalesce(bool_or(f.ready), false), coalesce(bool_or(f.done), false)
  into v_cascade, v_ready, v_done
  from (
    select r.run_id,
      r.status is not distinct from 'started' and (
        exists (
          select 1
          from pgflow.step_states as ss
          join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
          where ss.run_id = r.run_id and ss.status = 'created' and ss.remaining_deps = 0
            and (not coalesce(ss.initial_tasks > 0, false)
                 or s.required_input_pattern is not null or s.forbidden_input_pattern is not null)
        )
        or (
          exists (select 1 from pgflow.step_waits as w where w.flow_slug = r.flow_slug)
          and exists (
            select 1
            from pgflow.step_states as ss
            where ss.run_id = r.run_id
              and (ss.status = 'waiting' or (ss.status = 'created' and ss.remaining_deps = 0))
          )
        )
      ) as cascade,
      r.status is not distinct from 'started' and exists (
        select 1 from pgflow.step_states as ss
        where ss.run_id = r.run_id and ss.status = 'created' and ss.remaining_deps = 0
      ) as ready,
      r.remaining_steps = 0
        and (r.status is not distinct from 'started' or r.status is not distinct from 'paused') as done
    from unnest(_advance_runs.run_ids) as k (run_id)
    join pgflow.runs as r on r.run_id = k.run_id
  ) as f;

  -- _cascade may fail the run (a condition in fail mode, a wait that timed out) or make
  -- steps ready and runs done (an empty map completing): after one, both calls below run.
  -- They leave runs that are not started alone.
  if v_cascade is not null then
    foreach v_run_id in array v_cascade loop
      perform pgflow._cascade(v_run_id);
    end loop;
    v_ready := true;
    v_done := true;
  end if;

  if v_ready then
    perform pgflow._start_ready_steps(_advance_runs.run_ids);
  end if;
  if v_done then
    perform pgflow._complete_runs(_advance_runs.run_ids);
  end if;
end;
$$;

comment on function pgflow._advance_runs(uuid[]) is
'Moves every run of run_ids (uuid[]) forward after a change (a run started, steps completed
or skipped, a signal sent, a deadline passed): for runs with a ready step that has a
condition or no task, and runs of flows with wait steps that have a ready or a waiting step,
_cascade (conditions, waits, empty maps; may fail the run); then _start_ready_steps for all
of them when some run has a ready step (or a cascade ran), then _complete_runs when some run
has no remaining step (or a cascade ran). Broadcasts what those broadcast, in that order.
Runs that are not started are left alone, and a repeated call changes nothing. Callers hold
the run rows (lock order run -> step_state -> step_task). pgflow-py internal, used by
start_flow, complete_tasks and _skip_failed_step.';

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
begin
  -- CASCADE, run by run, only where it can change something: a run with a ready step (created,
  -- no pending dependency) that has a condition or no task (an empty map), or a wait.
  -- _cascade may fail the run (a condition in fail mode, a wait that timed out); the two
  -- calls below leave failed runs alone.
  for v_run_id in
    select r.run_id
    from pgflow.runs as r
    where r.run_id = any(_advance_runs.run_ids)
      and r.status is not distinct from 'started'
      and (
        exists (
          select 1
          from pgflow.step_states as ss
          join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
          where ss.run_id = r.run_id and ss.status = 'created' and ss.remaining_deps = 0
            and (not coalesce(ss.initial_tasks > 0, false)
                 or s.required_input_pattern is not null or s.forbidden_input_pattern is not null)
        )
        -- ... or, in a flow with wait steps, a ready step or a waiting one (a signal or a
        -- deadline may end its wait; _resolve_waits checks).
        or (
          exists (select 1 from pgflow.step_waits as w where w.flow_slug = r.flow_slug)
          and exists (
            select 1
            from pgflow.step_states as ss
            where ss.run_id = r.run_id
              and (ss.status = 'waiting' or (ss.status = 'created' and ss.remaining_deps = 0))
          )
        )
      )
    order by r.run_id
  loop
    perform pgflow._cascade(v_run_id);
  end loop;

  perform pgflow._start_ready_steps(_advance_runs.run_ids);
  perform pgflow._complete_runs(_advance_runs.run_ids);
end;
$$;

comment on function pgflow._advance_runs(uuid[]) is
'Moves every run of run_ids (uuid[]) forward after a change (a run started, steps
completed or skipped, a signal sent, a deadline passed): for runs with a ready step that
has a condition or no task, and runs of flows with wait steps that have a ready or a
waiting step, _cascade (conditions, waits, empty maps; may fail the run); then _start_ready_steps for all
of them, then _complete_runs. Broadcasts what those broadcast, in that order. Runs that are
not started are left alone, and a repeated call changes nothing. Callers hold the run rows
(lock order run -> step_state -> step_task). pgflow-py internal, used by start_flow,
complete_tasks and _skip_failed_step.';

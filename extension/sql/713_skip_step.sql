-- skip_step: an operator skips one step by hand, and the run moves on.

create function pgflow.skip_step(
  run_id uuid,
  step_slug text,
  actor text,
  reason text,
  expected_status text default null
)
returns setof pgflow.run_control_result
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
  v_previous text[];
begin
  v_run := pgflow._lock_run_for_control('skip_step', skip_step.run_id, skip_step.actor,
                                        skip_step.expected_status, array['started', 'paused', 'failed']);
  if v_run.status <> coalesce(skip_step.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, skip_step.expected_status);
    return;
  end if;
  perform pgflow._lock_step_for_control('skip_step', v_run, skip_step.step_slug, array['created', 'waiting', 'failed']);

  -- As a step skipped by its condition: dependents run without its output.
  v_previous := pgflow._set_actor(skip_step.actor, skip_step.reason);
  perform pgflow._skip_steps(v_run.run_id, array[skip_step.step_slug], 'skipped_by_operator');
  perform pgflow._abandon_waits(array[v_run.run_id], array[skip_step.step_slug]);
  perform pgflow._release_dependents(array[v_run.run_id], array[skip_step.step_slug]);
  if v_run.status = 'failed' then
    perform pgflow._reopen_run(v_run.run_id, false);
  else
    perform pgflow._advance_runs(array[v_run.run_id]);
  end if;
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query select r.run_id, r.status, true, null::text
  from pgflow.runs as r where r.run_id = v_run.run_id;
end;
$$;

comment on function pgflow.skip_step(uuid, text, text, text, text) is
'Skips step step_slug of run run_id by hand: a created or waiting step (of a started or
paused run) or
a failed step (of a failed run) becomes skipped (skip_reason skipped_by_operator) and the run
moves on as for a step skipped by its condition: dependents run without its output (a
dependent map gets no task), ready steps start, the run completes when nothing is left.
When it was the failed run''s last failed step, the run is started again and the steps
cancelled by the failure are created again (as retry_run); with another failed step left,
the run stays failed. actor (not blank), reason: recorded in run_events (step:skipped, and
what follows: step:started for released steps; on a failed run step:reset and run:retried). expected_status (optional, a run status): when the run is no longer in
that status, nothing is done. Returns run_id, status (the run''s, after the call),
changed, detail as cancel_run. Raises, writing nothing: no_data_found (unknown run or
step), object_not_in_prerequisite_state (55000) for a run that is completed or cancelled or
a step in another status, invalid_parameter_value (blank actor, unknown expected_status).
pgflow-py extension.';

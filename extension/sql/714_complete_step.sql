-- complete_step: an operator completes one step by hand with an output, and the run moves on.

create function pgflow.complete_step(
  run_id uuid,
  step_slug text,
  output jsonb,
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
  v_now timestamptz := pgflow._now();
  v_run pgflow.runs;
  v_state pgflow.step_states;
  v_previous text[];
begin
  v_run := pgflow._lock_run_for_control('complete_step', complete_step.run_id, complete_step.actor,
                                        complete_step.expected_status, array['started', 'paused', 'failed']);
  if v_run.status <> coalesce(complete_step.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, complete_step.expected_status);
    return;
  end if;
  v_state := pgflow._lock_step_for_control('complete_step', v_run, complete_step.step_slug,
                                           array['started', 'waiting', 'failed']);

  -- VALIDATE: what the step's dependents will read must have the right shape and size.
  perform pgflow._check_payload_size(complete_step.output,
    format('Output of step %s of run %s', complete_step.step_slug, v_run.run_id));
  if jsonb_typeof(complete_step.output) is distinct from 'array' and (
       (select s.step_type from pgflow.steps as s
        where s.flow_slug = v_state.flow_slug and s.step_slug = v_state.step_slug) = 'map'
       or pgflow._map_step_fed_by(v_state.flow_slug, v_state.step_slug) is not null) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('complete_step: the output of step %L must be a JSON array (got %s)',
                       complete_step.step_slug, coalesce(jsonb_typeof(complete_step.output), 'NULL')),
      detail = 'A map step''s output, and the output of a step a map step depends on, is an array.';
  end if;

  v_previous := pgflow._set_actor(complete_step.actor, complete_step.reason);
  update pgflow.step_states as ss
  set status = 'completed',
      completed_at = v_now,
      failed_at = null,
      error_message = null,
      remaining_tasks = 0,
      output = complete_step.output
  where ss.run_id = v_run.run_id and ss.step_slug = complete_step.step_slug;
  perform pgflow._record_events(array['step:completed'], array[v_run.run_id], array[complete_step.step_slug]);
  perform pgflow._cancel_tasks(array[v_run.run_id], array[complete_step.step_slug]);
  perform pgflow._abandon_waits(array[v_run.run_id], array[complete_step.step_slug]);
  perform pgflow._release_dependents(array[v_run.run_id], array[complete_step.step_slug]);
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

comment on function pgflow.complete_step(uuid, text, jsonb, text, text, text) is
'Completes step step_slug of run run_id by hand with output (jsonb, supplied by a person): a
failed step (of a failed run) or a started or waiting one (of a started or paused run,
e.g. whose task is stuck, or to end a wait without a signal) becomes completed with that output; its queued and started tasks are cancelled
and their messages archived; dependents are released and the run moves on as after a step
completed by its tasks. On a failed run whose last failed step this was, the run is started
again (as retry_run: cancelled steps are created again); with another failed step left, it
stays failed. actor (not blank), reason: recorded in run_events (step:completed). Raises,
writing nothing: invalid_parameter_value when output is not an array for a map step or a
step a map depends on, program_limit_exceeded for an output over pgflow.max_payload_bytes,
no_data_found (unknown run or step), object_not_in_prerequisite_state (55000) for a
completed or cancelled run or a step in another status, invalid_parameter_value (blank
actor, unknown expected_status). expected_status and the result as skip_step. pgflow-py
extension.';

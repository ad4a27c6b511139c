-- skip_step / complete_step: an operator settles one step by hand, and the run moves on.

create function pgflow._lock_step_for_control(verb text, run pgflow.runs, step_slug text, legal_statuses text[])
returns pgflow.step_states
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_state pgflow.step_states;
begin
  select ss.* into v_state
  from pgflow.step_states as ss
  where ss.run_id = (_lock_step_for_control.run).run_id and ss.step_slug = _lock_step_for_control.step_slug
  for update;
  if not found then
    raise exception using
      errcode = 'no_data_found',
      message = format('%s: run %s has no step %L', _lock_step_for_control.verb,
                       (_lock_step_for_control.run).run_id, _lock_step_for_control.step_slug);
  end if;
  -- A failed run holds failed steps (and cancelled ones); only its failed steps can be settled.
  if not v_state.status = any(_lock_step_for_control.legal_statuses)
     or ((_lock_step_for_control.run).status = 'failed') <> (v_state.status = 'failed') then
    raise exception using
      errcode = 'object_not_in_prerequisite_state',
      message = format('%s: step %L of run %s is %s (the run is %s)', _lock_step_for_control.verb,
                       v_state.step_slug, v_state.run_id, v_state.status, (_lock_step_for_control.run).status),
      detail = format('%s applies to a step that is %s (of a failed run: a failed step).',
                      _lock_step_for_control.verb, array_to_string(_lock_step_for_control.legal_statuses, ' or ')),
      hint = 'Nothing was changed.';
  end if;
  return v_state;
end;
$$;

comment on function pgflow._lock_step_for_control(text, pgflow.runs, text, text[]) is
'Locks the step state (run.run_id, step_slug) FOR UPDATE for run-control verb verb and
returns it. Raises, writing nothing: no_data_found "<verb>: run <id> has no step <slug>";
object_not_in_prerequisite_state (55000) "<verb>: step <slug> of run <id> is <status> (the
run is <status>)" when the step''s status is not one of legal_statuses, or when the run is
failed and the step is not (or the other way round). The caller holds the run row.
pgflow-py internal.';

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

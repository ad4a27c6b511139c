-- _lock_run_for_control: the common start of every run-control verb: check the arguments,
-- lock the run, compare its status with the one the caller expects and the ones the verb
-- accepts.

create function pgflow._lock_run_for_control(
  verb text,
  run_id uuid,
  actor text,
  expected_status text,
  legal_statuses text[]
)
returns pgflow.runs
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
begin
  -- VALIDATE: who acts is always known.
  if _lock_run_for_control.actor is null or _lock_run_for_control.actor ~ '^\s*$' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: actor must name who acts (got %L)', _lock_run_for_control.verb,
                       _lock_run_for_control.actor),
      hint = 'Pass e.g. ''alice'', ''ops-script'' or ''dashboard:alice''.';
  end if;
  if length(_lock_run_for_control.actor) > 200 or _lock_run_for_control.actor ~ '[[:cntrl:]]' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: actor must be at most 200 characters without control characters',
                       _lock_run_for_control.verb),
      hint = 'The actor is shown in pgflow events and pgflow status, one line per event.';
  end if;
  if _lock_run_for_control.expected_status is not null
     and _lock_run_for_control.expected_status not in ('started', 'completed', 'failed', 'cancelled', 'paused',
                                                       'queued', 'expired') then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: expected_status %L is not a run status', _lock_run_for_control.verb,
                       _lock_run_for_control.expected_status),
      hint = 'A run status is queued, started, paused, completed, failed, cancelled or expired.';
  end if;

  -- LOCK: the run row, first of the lock order (run -> step_state -> step_task).
  select r.* into v_run
  from pgflow.runs as r
  where r.run_id = _lock_run_for_control.run_id
  for update;
  if not found then
    raise exception using
      errcode = 'no_data_found',
      message = format('%s: run %s does not exist', _lock_run_for_control.verb,
                       coalesce(_lock_run_for_control.run_id::text, 'NULL'));
  end if;

  -- GUARD: the run moved on since the caller looked: the caller does nothing.
  if _lock_run_for_control.expected_status is not null
     and v_run.status <> _lock_run_for_control.expected_status then
    return v_run;
  end if;
  if not v_run.status = any(_lock_run_for_control.legal_statuses) then
    raise exception using
      errcode = 'object_not_in_prerequisite_state',
      message = format('%s: run %s is %s', _lock_run_for_control.verb, v_run.run_id, v_run.status),
      detail = format('%s applies to a run that is %s.', _lock_run_for_control.verb,
                      array_to_string(_lock_run_for_control.legal_statuses, ' or ')),
      hint = 'Nothing was changed.';
  end if;
  return v_run;
end;
$$;

comment on function pgflow._lock_run_for_control(text, uuid, text, text, text[]) is
'The start of run-control verb verb (its name, for messages): locks run run_id FOR UPDATE
and returns it. The caller does nothing more when expected_status is given and differs from
the run''s status (it reports the status it found). Raises, writing nothing:
invalid_parameter_value for a NULL or blank (whitespace only) actor, one over 200
characters or with a control character (a newline would forge lines in pgflow events) or an expected_status that is not a run
status; no_data_found "<verb>: run <id> does not exist"; object_not_in_prerequisite_state
(SQLSTATE 55000) "<verb>: run <id> is <status>" when the status is not one of
legal_statuses. pgflow-py internal.';

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

create function pgflow._moved_on(run pgflow.runs, expected_status text)
returns pgflow.run_control_result
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select (_moved_on.run).run_id, (_moved_on.run).status, false,
    format('run is %s, not %s: nothing done', (_moved_on.run).status, _moved_on.expected_status);
$$;

comment on function pgflow._moved_on(pgflow.runs, text) is
'The result of a run-control verb that did nothing because run (the row
_lock_run_for_control returned) is no longer in expected_status: (run_id, status, changed
false, detail "run is <status>, not <expected_status>: nothing done"). pgflow-py internal.';

create function pgflow._set_actor(actor text, reason text)
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_previous text[] := array[pg_catalog.current_setting('pgflow.actor', true),
                             pg_catalog.current_setting('pgflow.reason', true)];
begin
  perform pg_catalog.set_config('pgflow.actor', coalesce(_set_actor.actor, ''), true);
  perform pg_catalog.set_config('pgflow.reason', coalesce(_set_actor.reason, ''), true);
  return v_previous;
end;
$$;

comment on function pgflow._set_actor(text, text) is
'Sets who acts and why for the events recorded from now on in this transaction (settings
pgflow.actor and pgflow.reason, read by _record_events; NULL: unset) and returns
the previous values as {actor, reason}, which the caller sets back when it is done, so a
later statement of the same transaction is not attributed to it. pgflow-py internal.';

create function pgflow._set_worker_actor(run_ids uuid[], step_slugs text[], task_indexes int[])
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_worker_id uuid;
begin
  -- A caller that already said who acts keeps it.
  if coalesce(pg_catalog.current_setting('pgflow.actor', true), '') <> '' then
    return null;
  end if;
  -- The worker of the first report whose task has one (a call's reports come from one
  -- worker; a report of an unknown or requeued task names none).
  select t.last_worker_id into v_worker_id
  from unnest(_set_worker_actor.run_ids, _set_worker_actor.step_slugs, _set_worker_actor.task_indexes)
    with ordinality as k (run_id, step_slug, task_index, ord)
  join pgflow.step_tasks as t
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  where t.last_worker_id is not null
  order by k.ord
  limit 1;
  if v_worker_id is null then
    return null;
  end if;
  return pgflow._set_actor('worker:' || v_worker_id::text, null);
end;
$$;

comment on function pgflow._set_worker_actor(uuid[], text[], int[]) is
'For a call reporting tasks (run_ids[i], step_slugs[i], task_indexes[i]): unless the setting
pgflow.actor is already set, sets it to worker:<the worker that claimed the first of these
tasks that has one> (and pgflow.reason unset) for the events the call causes, and returns
the previous {actor, reason} for the caller to set back (_set_actor); returns NULL,
changing nothing, when the actor was already set or no task has a worker. pgflow-py
internal, used by complete_tasks and fail_tasks.';

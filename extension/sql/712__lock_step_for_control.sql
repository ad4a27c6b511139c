-- _lock_step_for_control: the common start of skip_step and complete_step: lock the step
-- and check its status.

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

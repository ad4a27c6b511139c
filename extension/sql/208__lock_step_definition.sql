-- _lock_step_definition: the common start of add_wait and add_timer: lock the flow's
-- definition and return the step.

create function pgflow._lock_step_definition(caller text, flow_slug text, step_slug text)
returns pgflow.steps
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step pgflow.steps;
begin
  -- LOCK: definitions of one flow are serialised on its flows row (as add_step).
  perform 1 from pgflow.flows as f where f.flow_slug = _lock_step_definition.flow_slug for update;
  select s.* into v_step
  from pgflow.steps as s
  where s.flow_slug = _lock_step_definition.flow_slug and s.step_slug = _lock_step_definition.step_slug;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('%s: step %L of flow %L does not exist', _lock_step_definition.caller,
                       _lock_step_definition.step_slug, _lock_step_definition.flow_slug),
      hint = 'Add the step first with pgflow.add_step.';
  end if;
  if v_step.step_type <> 'single' then
    raise exception using
      errcode = 'check_violation',
      message = format('%s: step %L of flow %L is a map step; only a single step can wait',
                       _lock_step_definition.caller, v_step.step_slug, v_step.flow_slug),
      hint = 'Put a wait step before the map step (depends_on).';
  end if;
  return v_step;
end;
$$;

comment on function pgflow._lock_step_definition(text, text, text) is
'The start of add_wait and add_timer (caller: its name, for messages): locks the flows row of
flow_slug (definitions of a flow are serialised) and returns step step_slug. Raises
foreign_key_violation when the flow or the step does not exist, check_violation for a map
step (only single steps wait). pgflow-py internal.';

-- _store_step_wait: store a step's wait (step_waits); the same wait again is a no-op.

create function pgflow._store_step_wait(wait pgflow.step_waits)
returns pgflow.step_waits
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_existing pgflow.step_waits;
begin
  insert into pgflow.step_waits (flow_slug, step_slug, kind, signal_name, signal_match,
    timeout_seconds, on_timeout, runs_handler, sleep_seconds, sleep_until)
  values ((wait).flow_slug, (wait).step_slug, (wait).kind, (wait).signal_name, (wait).signal_match,
    (wait).timeout_seconds, (wait).on_timeout, (wait).runs_handler, (wait).sleep_seconds,
    (wait).sleep_until)
  on conflict on constraint step_waits_pkey do nothing
  returning * into v_existing;
  if found then
    return v_existing;
  end if;
  -- The step waits already: the same wait again is a no-op, another one an error.
  select w.* into v_existing
  from pgflow.step_waits as w
  where w.flow_slug = (wait).flow_slug and w.step_slug = (wait).step_slug;
  if (v_existing.kind, v_existing.signal_name, v_existing.signal_match, v_existing.timeout_seconds,
      v_existing.on_timeout, v_existing.runs_handler, v_existing.sleep_seconds, v_existing.sleep_until)
     is distinct from ((wait).kind, (wait).signal_name, (wait).signal_match, (wait).timeout_seconds,
      (wait).on_timeout, (wait).runs_handler, (wait).sleep_seconds, (wait).sleep_until) then
    raise exception using
      errcode = 'unique_violation',
      message = format('Step %L of flow %L already waits, with other settings', (wait).step_slug,
                       (wait).flow_slug),
      hint = 'A flow''s definition does not change: create a new flow (or delete this one in development).';
  end if;
  return v_existing;
end;
$$;

comment on function pgflow._store_step_wait(pgflow.step_waits) is
'Inserts wait (a step_waits row; created_at is ignored) and returns it; when the step waits
already with the same settings returns the stored row (a repeated definition is a no-op);
raises unique_violation "Step <slug> of flow <slug> already waits, with other settings"
otherwise. Callers validated the row and hold the flows row. pgflow-py internal.';

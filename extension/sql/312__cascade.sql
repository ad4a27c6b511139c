-- _cascade: settle a run after a change, before ready steps are started.

create function pgflow._cascade(run_id uuid)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_rounds int := 0;
  v_waits boolean;
  v_changed boolean;
begin
  -- Waits are settled only in flows that have some (one index probe).
  v_waits := exists (
    select 1 from pgflow.runs as r join pgflow.step_waits as w on w.flow_slug = r.flow_slug
    where r.run_id = _cascade.run_id
  );
  loop
    v_rounds := v_rounds + 1;
    if v_rounds > 1000 then
      raise exception 'pgflow._cascade: run % did not settle after 1000 rounds', _cascade.run_id;
    end if;
    if not pgflow.cascade_resolve_conditions(_cascade.run_id) then
      return false;
    end if;
    -- Waits right after conditions (a step waits only once its condition is met), before
    -- taskless steps release more steps.
    v_changed := false;
    if v_waits then
      v_changed := pgflow._enter_waits(_cascade.run_id) + pgflow._resolve_waits(_cascade.run_id) > 0;
    end if;
    if pgflow.cascade_complete_taskless_steps(_cascade.run_id) > 0 then
      v_changed := true;
    end if;
    exit when not v_changed;
  end loop;
  return true;
end;
$$;

comment on function pgflow._cascade(uuid) is
'Alternates cascade_resolve_conditions, the waits (in flows with wait steps: _enter_waits
then _resolve_waits: ready steps that wait start waiting, waits that can end now end) and
cascade_complete_taskless_steps until none of them changes anything, so a step made ready
by an empty map completing still has its condition evaluated before it starts (upstream evaluates conditions only once, before the taskless
cascade). Returns false when a condition with when_unmet = fail failed the run, or when
the run is already failed or unknown; else true.
Raises after 1000 rounds (a safety cap; a DAG settles in at most one round per step).';

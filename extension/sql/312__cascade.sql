-- _cascade: settle a run after a change, before ready steps are started.

create function pgflow._cascade(run_id uuid)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_rounds int := 0;
begin
  loop
    v_rounds := v_rounds + 1;
    if v_rounds > 1000 then
      raise exception 'pgflow._cascade: run % did not settle after 1000 rounds', _cascade.run_id;
    end if;
    if not pgflow.cascade_resolve_conditions(_cascade.run_id) then
      return false;
    end if;
    exit when pgflow.cascade_complete_taskless_steps(_cascade.run_id) = 0;
  end loop;
  return true;
end;
$$;

comment on function pgflow._cascade(uuid) is
'Alternates cascade_resolve_conditions and cascade_complete_taskless_steps until neither
changes anything, so a step made ready by an empty map completing still has its condition
evaluated before it starts (upstream evaluates conditions only once, before the taskless
cascade). Returns false when a condition with when_unmet = fail failed the run, or when
the run is already failed or unknown; else true.
Raises after 1000 rounds (a safety cap; a DAG settles in at most one round per step).';

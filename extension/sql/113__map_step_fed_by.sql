-- _map_step_fed_by: the map step that a single step feeds, if any (its output must then be
-- an array).

create function pgflow._map_step_fed_by(flow_slug text, step_slug text)
returns text
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL so the plan is cached per session, and a caller's CASE only pays for it when it
  -- gets here (a subquery in the caller would be set up at every call).
  return (
    select cs.step_slug
    from pgflow.steps as s
    join pgflow.deps as d on d.flow_slug = s.flow_slug and d.dep_slug = s.step_slug
    join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
    where s.flow_slug = _map_step_fed_by.flow_slug and s.step_slug = _map_step_fed_by.step_slug
      and s.step_type = 'single' and cs.step_type = 'map'
    order by cs.step_index
    limit 1
  );
end;
$$;

comment on function pgflow._map_step_fed_by(text, text) is
'The slug of the first map step (by step_index) that depends on step step_slug of flow
flow_slug when that step is a single step, else NULL (a map step, a step without map
dependents, an unknown step). Such a step must produce an array: complete_tasks fails its
task, step and run otherwise ([TYPE_VIOLATION]). Never raises, writes nothing. pgflow-py
internal.';

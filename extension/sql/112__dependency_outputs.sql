-- _dependency_outputs: the input of a dependent single step.

create function pgflow._dependency_outputs(run_id uuid, flow_slug text, step_slug text)
returns jsonb
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL so the plan is cached per session (a SQL function with SET re-plans per call).
  return (
  select coalesce(jsonb_object_agg(d.dep_slug, ps.output), '{}'::jsonb)
  from pgflow.deps as d
  join pgflow.step_states as ps
    on ps.run_id = _dependency_outputs.run_id and ps.step_slug = d.dep_slug
  where d.flow_slug = _dependency_outputs.flow_slug
    and d.step_slug = _dependency_outputs.step_slug
    and ps.status = 'completed'
  );
end;
$$;

comment on function pgflow._dependency_outputs(uuid, text, text) is
'Returns {dep_slug: output} over the completed dependencies of step step_slug in run
run_id, reading the stored step_states.output (map outputs already aggregated). Skipped
dependencies are absent (not null); {} when none completed. Used for condition evaluation
and by start_tasks for dependent single steps.';

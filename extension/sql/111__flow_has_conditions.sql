-- _flow_has_conditions: whether any step of a flow has a condition (if / ifNot pattern).

create function pgflow._flow_has_conditions(flow_slug text)
returns boolean
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL so the plan is cached per session (a SQL function with SET re-plans per call).
  return exists (
    select 1
    from pgflow.steps as s
    where s.flow_slug = _flow_has_conditions.flow_slug
      and (s.required_input_pattern is not null or s.forbidden_input_pattern is not null)
  );
end;
$$;

comment on function pgflow._flow_has_conditions(text) is
'True when some step of flow flow_slug has a required_input_pattern or a
forbidden_input_pattern (a condition), false otherwise, also for an unknown flow. Flows
without conditions take the set-based paths of complete_tasks and _advance_runs; flows
with conditions are settled run by run (cascade_resolve_conditions). Never raises, writes
nothing. pgflow-py internal.';

-- _release_skipped_steps: bookkeeping after steps were skipped in skip mode.

create function pgflow._release_skipped_steps(run_id uuid, flow_slug text, step_slugs text[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if step_slugs is null or cardinality(step_slugs) = 0 then
    return;
  end if;

  update pgflow.runs as r
  set remaining_steps = r.remaining_steps - cardinality(_release_skipped_steps.step_slugs)
  where r.run_id = _release_skipped_steps.run_id;

  -- Each dependent loses one pending parent per skipped parent; a dependent map (exactly
  -- one parent) has nothing to map over and gets 0 tasks.
  update pgflow.step_states as ss
  set remaining_deps = ss.remaining_deps - c.skipped_parents,
      initial_tasks = case
        when s.step_type = 'map' and s.deps_count = 1 then 0
        else ss.initial_tasks
      end
  from (
    select d.step_slug, count(*)::int as skipped_parents
    from pgflow.deps as d
    where d.flow_slug = _release_skipped_steps.flow_slug
      and d.dep_slug = any(_release_skipped_steps.step_slugs)
    group by d.step_slug
  ) as c,
  pgflow.steps as s
  where ss.run_id = _release_skipped_steps.run_id
    and ss.step_slug = c.step_slug
    and ss.status = 'created'
    and s.flow_slug = ss.flow_slug
    and s.step_slug = ss.step_slug;
end;
$$;

comment on function pgflow._release_skipped_steps(uuid, text, text[]) is
'After steps step_slugs of run run_id were skipped in skip mode (condition unmet or handler
failed): decrements runs.remaining_steps by their number, and for each created dependent
decrements remaining_deps by its number of skipped parents, giving a dependent map 0 tasks.
Skipped dependencies are then simply absent from dependents'' input.';

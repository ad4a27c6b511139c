-- _cascade_force_skip_steps: skip a step and all of its transitive dependents.

create function pgflow._cascade_force_skip_steps(run_id uuid, step_slug text, skip_reason text)
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow_slug text;
  v_count int;
  v_slugs text[];
begin
  select r.flow_slug into v_flow_slug from pgflow.runs as r where r.run_id = _cascade_force_skip_steps.run_id;
  if not found then
    raise exception using
      errcode = 'no_data_found',
      message = format('Run not found: %s', _cascade_force_skip_steps.run_id);
  end if;

  -- MUTATE: the step, then its transitive dependents, where still created or started
  -- (dependents come after it in step_index order, so events stay in that order).
  with recursive subtree as (
    select _cascade_force_skip_steps.step_slug as step_slug
    union
    select d.step_slug
    from pgflow.deps as d
    join subtree as t on d.dep_slug = t.step_slug
    where d.flow_slug = v_flow_slug
  )
  select array_agg(st.step_slug) filter (where st.step_slug <> _cascade_force_skip_steps.step_slug)
  into v_slugs
  from subtree as st;
  v_count := cardinality(pgflow._skip_steps(_cascade_force_skip_steps.run_id,
                                            array[_cascade_force_skip_steps.step_slug],
                                            _cascade_force_skip_steps.skip_reason))
           + cardinality(pgflow._skip_steps(_cascade_force_skip_steps.run_id,
                                            coalesce(v_slugs, '{}'::text[]), 'dependency_skipped'));
  if v_count = 0 then
    return 0;
  end if;

  update pgflow.runs as r
  set remaining_steps = r.remaining_steps - v_count
  where r.run_id = _cascade_force_skip_steps.run_id;

  return v_count;
end;
$$;

comment on function pgflow._cascade_force_skip_steps(uuid, text, text) is
'Skips step step_slug of run run_id with skip_reason (condition_unmet or handler_failed)
and every transitive dependent with reason dependency_skipped, if still created or
started (_skip_steps: status skipped, skipped_at now, remaining_tasks NULL, messages of
queued and started tasks archived, step:skipped broadcast in step_index order);
decrements runs.remaining_steps once per skipped step. Does not touch remaining_deps (every
dependent is skipped too). Returns the number of steps skipped; a repeated call skips
nothing. Raises no_data_found "Run not found" for an unknown run. As upstream 0.14.1.';

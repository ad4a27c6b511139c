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

  -- MUTATE: the step and its transitive dependents that are still created or started.
  with recursive subtree as (
    select _cascade_force_skip_steps.step_slug as step_slug
    union
    select d.step_slug
    from pgflow.deps as d
    join subtree as t on d.dep_slug = t.step_slug
    where d.flow_slug = v_flow_slug
  ),
  skipped as (
    update pgflow.step_states as ss
    set status = 'skipped',
        skip_reason = case
          when ss.step_slug = _cascade_force_skip_steps.step_slug then _cascade_force_skip_steps.skip_reason
          else 'dependency_skipped'
        end,
        skipped_at = now(),
        remaining_tasks = null
    from subtree
    where ss.run_id = _cascade_force_skip_steps.run_id
      and ss.step_slug = subtree.step_slug
      and ss.status in ('created', 'started')
    returning ss.step_slug
  )
  select coalesce(array_agg(skipped.step_slug), '{}') into v_slugs from skipped;
  v_count := cardinality(v_slugs);
  if v_count = 0 then
    return 0;
  end if;

  update pgflow.runs as r
  set remaining_steps = r.remaining_steps - v_count
  where r.run_id = _cascade_force_skip_steps.run_id;

  -- Messages of queued or started tasks of skipped steps go to the archive.
  perform pgflow._archive_messages(v_flow_slug, array(
    select t.message_id
    from pgflow.step_tasks as t
    where t.run_id = _cascade_force_skip_steps.run_id
      and t.step_slug = any(v_slugs)
      and t.status in ('queued', 'started')
      and t.message_id is not null
  ));

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(_cascade_force_skip_steps.run_id, 'step:' || ss.step_slug || ':skipped',
      jsonb_build_object(
        'event_type', 'step:skipped',
        'run_id', ss.run_id,
        'flow_slug', ss.flow_slug,
        'step_slug', ss.step_slug,
        'status', 'skipped',
        'skip_reason', ss.skip_reason,
        'skipped_at', ss.skipped_at
      ))
    from pgflow.step_states as ss
    join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    where ss.run_id = _cascade_force_skip_steps.run_id and ss.step_slug = any(v_slugs)
    order by s.step_index;
  end if;

  return v_count;
end;
$$;

comment on function pgflow._cascade_force_skip_steps(uuid, text, text) is
'Skips step step_slug of run run_id with skip_reason (condition_unmet or handler_failed)
and every transitive dependent with reason dependency_skipped, if still created or
started: status skipped, skipped_at now, remaining_tasks NULL; archives the messages of
their queued and started tasks; decrements runs.remaining_steps once per skipped step;
broadcasts step:skipped in step_index order. Does not touch remaining_deps (every
dependent is skipped too). Returns the number of steps skipped; a repeated call skips
nothing. Raises no_data_found "Run not found" for an unknown run. As upstream 0.14.1.';

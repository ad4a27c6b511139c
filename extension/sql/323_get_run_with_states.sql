-- get_run_with_states: a run and its step states as one jsonb.

create function pgflow.get_run_with_states(run_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select jsonb_build_object(
    'run', to_jsonb(r),
    'steps', coalesce((
      select jsonb_agg(to_jsonb(ss) order by s.step_index)
      from pgflow.step_states as ss
      join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
      where ss.run_id = r.run_id
    ), '[]'::jsonb)
  )
  from pgflow.runs as r
  where r.run_id = get_run_with_states.run_id;
$$;

comment on function pgflow.get_run_with_states(uuid) is
'Returns {"run": <runs row>, "steps": [<step_states rows in step_index order>]} for run
run_id (steps [] when none), or NULL when the run does not exist. SECURITY DEFINER with a
pinned search_path. As upstream pgflow 0.14.1.';

-- get_run_with_states / start_flow_with_states: a run and its step states as one jsonb.

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

create function pgflow.start_flow_with_states(flow_slug text, input jsonb, run_id uuid default null)
returns jsonb
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_id uuid;
begin
  select r.run_id into v_run_id
  from pgflow.start_flow(start_flow_with_states.flow_slug, start_flow_with_states.input, start_flow_with_states.run_id) as r;
  return pgflow.get_run_with_states(v_run_id);
end;
$$;

comment on function pgflow.start_flow_with_states(text, jsonb, uuid) is
'Starts a run like start_flow(flow_slug, input, run_id) and returns get_run_with_states of
the new run. Raises what start_flow raises. SECURITY DEFINER with a pinned search_path.
As upstream pgflow 0.14.1.';

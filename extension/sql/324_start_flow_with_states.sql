-- start_flow_with_states: starts a run like start_flow(flow_slug, input, run_id) and returns
-- get_run_with_states of the new run.

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

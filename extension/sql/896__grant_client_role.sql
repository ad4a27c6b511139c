-- _grant_client_role: the privileges of role pgflow_client (an application that starts
-- runs), from scratch.

create function pgflow._grant_client_role()
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  revoke all on all tables in schema pgflow from pgflow_client;
  revoke all on all routines in schema pgflow from pgflow_client;
  grant usage on schema pgflow to pgflow_client;
  grant select on pgflow.installed_versions, pgflow.flows, pgflow.steps, pgflow.deps,
    pgflow.runs, pgflow.step_states, pgflow.step_tasks, pgflow.permanently_stalled_tasks,
    pgflow.run_events, pgflow.step_waits, pgflow.wait_states, pgflow.signals, pgflow.test_clock
    to pgflow_client;
  grant execute on function
    pgflow.version(),
    pgflow._now(),
    pgflow._test_clock_now(),
    pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz),
    pgflow.start_flow_with_states(text, jsonb, uuid),
    pgflow.get_run_with_states(uuid),
    pgflow.get_run_slot(uuid),
    pgflow.get_run_events(uuid),
    pgflow.send_signal(uuid, text, jsonb, text, text, text),
    pgflow.get_step_signal(uuid, text),
    pgflow.get_run_waits(uuid),
    pgflow.get_step_stats(text, timestamptz),
    pgflow.get_run_counts(text, timestamptz, int)
    to pgflow_client;
end;
$$;

comment on function pgflow._grant_client_role() is
'Gives role pgflow_client (an application: starts runs and reads their state, signals waits)
exactly its privileges in schema pgflow: revokes every table and routine privilege it has
there, then grants USAGE on the schema, SELECT on installed_versions, flows, steps, deps,
runs, step_states, step_tasks, permanently_stalled_tasks, run_events, step_waits,
wait_states, signals, test_clock and EXECUTE on version, _now, _test_clock_now, start_flow,
start_flow_with_states, get_run_with_states, get_run_slot, get_run_events, send_signal,
get_step_signal, get_run_waits, get_step_stats, get_run_counts. Idempotent. Raises
undefined_object when the role does not exist (setup_security calls it only when it does).
pgflow-py internal.';

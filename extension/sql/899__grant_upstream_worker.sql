-- _grant_upstream_worker: the privileges of role pgflow_upstream_worker, from scratch.

create function pgflow._grant_upstream_worker()
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- An upstream pgflow worker (0.14.x) registers and heartbeats by writing pgflow.workers
  -- itself, reads run inputs, reads messages with pgmq.read_with_poll, and reports through
  -- upstream's functions. It gets exactly that.
  revoke all on all tables in schema pgflow from pgflow_upstream_worker;
  revoke all on all routines in schema pgflow from pgflow_upstream_worker;
  grant usage on schema pgflow to pgflow_upstream_worker;
  grant select on pgflow.installed_versions, pgflow.flows, pgflow.steps, pgflow.deps,
    pgflow.runs, pgflow.step_states, pgflow.step_tasks to pgflow_upstream_worker;
  grant select, insert, update on pgflow.workers to pgflow_upstream_worker;
  grant execute on function
    pgflow.version(),
    pgflow.track_worker_function(text),
    pgflow.ensure_flow_compiled(text, jsonb, boolean),
    pgflow.start_tasks(text, bigint[], uuid),
    pgflow.complete_task(uuid, text, int, jsonb, int),
    pgflow.fail_task(uuid, text, int, text, int),
    pgflow.mark_worker_stopped(uuid)
    to pgflow_upstream_worker;
  grant usage on schema pgmq to pgflow_upstream_worker;
  perform pgflow._grant_queue_to_upstream_worker(f.flow_slug) from pgflow.flows as f;
  -- A role that does not own schema pgmq (nor holds the grant option) grants nothing there
  -- and PostgreSQL only warns: say what to run.
  if not pg_catalog.has_schema_privilege('pgflow_upstream_worker', 'pgmq', 'usage') then
    raise notice using
      message = format('pgflow: %s may not grant on schema pgmq; pgflow_upstream_worker cannot '
                       'read the flow queues yet', current_user),
      hint = 'As the owner of schema pgmq: GRANT USAGE ON SCHEMA pgmq TO pgflow_upstream_worker; '
             'then, as the owner of schema pgflow: SELECT pgflow.setup_security();';
  end if;
end;
$$;

comment on function pgflow._grant_upstream_worker() is
'Grants role pgflow_upstream_worker (which must exist) what an upstream pgflow 0.14.x
worker does with its own statements, after revoking every table and routine privilege
it had in schema pgflow (sequence privileges and CREATE on the schema are not touched):
USAGE on schemas pgflow and pgmq; SELECT on installed_versions, flows, steps, deps, runs
(run inputs), step_states and step_tasks; SELECT, INSERT and UPDATE on workers (it
registers, heartbeats and deprecates its rows itself); EXECUTE on version,
track_worker_function, ensure_flow_compiled, start_tasks, complete_task, fail_task and
mark_worker_stopped; SELECT and UPDATE on the pgmq queue table of every flow
(_grant_queue_to_upstream_worker; create_flow grants new ones). Wider than pgflow_worker:
it may change any worker row and any message of a flow queue. Raises a NOTICE with the
GRANT to run when this role has USAGE on schema pgmq without the grant option (without any
privilege on pgmq: insufficient_privilege, 42501). Called by setup_security.
pgflow-py internal.';

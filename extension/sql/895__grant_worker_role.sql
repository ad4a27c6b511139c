-- _grant_worker_role: the privileges of role pgflow_worker (a pgflow-py worker), from
-- scratch.

create function pgflow._grant_worker_role()
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  revoke all on all tables in schema pgflow from pgflow_worker;
  revoke all on all routines in schema pgflow from pgflow_worker;
  grant usage on schema pgflow to pgflow_worker;
  grant select on pgflow.installed_versions, pgflow.flows, pgflow.steps, pgflow.deps,
    pgflow.runs, pgflow.step_states, pgflow.step_tasks, pgflow.permanently_stalled_tasks,
    pgflow.run_events, pgflow.step_waits, pgflow.wait_states, pgflow.signals, pgflow.test_clock
    to pgflow_worker;
  grant execute on function
    pgflow.version(),
    pgflow._now(),
    pgflow._test_clock_now(),
    pgflow.ensure_flow_compiled(text, jsonb, boolean),
    pgflow.sync_flow_options(text, jsonb),
    pgflow.track_worker_function(text),
    pgflow.register_worker(uuid, text, text),
    pgflow.sync_flow_schedule(text, text, jsonb),
    pgflow.enable_flow_notify(text, int),
    pgflow.read_tasks(text, int, int),
    pgflow.read_and_start_tasks(text, uuid, int, int, text[]),
    pgflow.start_tasks(text, bigint[], uuid),
    pgflow.complete_task(uuid, text, int, jsonb, int),
    pgflow.complete_tasks(uuid[], text[], int[], jsonb[], int[]),
    pgflow.fail_task(uuid, text, int, text, int),
    pgflow.fail_tasks(uuid[], text[], int[], text[], int[], boolean[], text[]),
    pgflow.worker_heartbeat(uuid),
    pgflow.recover_stalled_tasks(),
    pgflow.requeue_stalled_tasks(),
    pgflow.deprecate_worker(uuid),
    pgflow.mark_worker_stopped(uuid),
    pgflow.cancelled_tasks(uuid[], text[], int[]),
    pgflow.get_run_events(uuid),
    pgflow.get_step_signal(uuid, text),
    pgflow.get_run_waits(uuid),
    pgflow.tick(int)
    to pgflow_worker;
end;
$$;

comment on function pgflow._grant_worker_role() is
'Gives role pgflow_worker (a pgflow-py worker: reads task messages, claims tasks and reports
outcomes through functions) exactly its privileges in schema pgflow: revokes every table and
routine privilege it has there, then grants USAGE on the schema, SELECT on
installed_versions, flows, steps, deps, runs, step_states, step_tasks,
permanently_stalled_tasks, run_events, step_waits, wait_states, signals, test_clock and
EXECUTE on version, _now, _test_clock_now, ensure_flow_compiled, sync_flow_options,
track_worker_function, register_worker, sync_flow_schedule, enable_flow_notify, read_tasks,
read_and_start_tasks, start_tasks, complete_task, complete_tasks, fail_task, fail_tasks,
worker_heartbeat, recover_stalled_tasks, requeue_stalled_tasks, deprecate_worker,
mark_worker_stopped, cancelled_tasks, get_run_events, get_step_signal, get_run_waits, tick.
Idempotent. Raises undefined_object when the role does not exist (setup_security calls it
only when it does). pgflow-py internal.';

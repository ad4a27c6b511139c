-- _grant_operator_role: the privileges of role pgflow_operator (a person or a dashboard
-- controlling runs), from scratch.

create function pgflow._grant_operator_role()
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  revoke all on all tables in schema pgflow from pgflow_operator;
  revoke all on all routines in schema pgflow from pgflow_operator;
  grant usage on schema pgflow to pgflow_operator;
  grant select on pgflow.installed_versions, pgflow.flows, pgflow.steps, pgflow.deps,
    pgflow.runs, pgflow.step_states, pgflow.step_tasks, pgflow.permanently_stalled_tasks,
    pgflow.run_events, pgflow.workers, pgflow.step_waits, pgflow.wait_states, pgflow.signals,
    pgflow.test_clock
    to pgflow_operator;
  grant execute on function
    pgflow.version(),
    pgflow._now(),
    pgflow._test_clock_now(),
    pgflow.get_run_with_states(uuid),
    pgflow.get_run_events(uuid),
    pgflow.cancel_run(uuid, text, text, text),
    pgflow.pause_run(uuid, text, text, text),
    pgflow.resume_run(uuid, text, text, text),
    pgflow.retry_run(uuid, text, text, text),
    pgflow.rerun_flow(uuid, text, text, text),
    pgflow.skip_step(uuid, text, text, text, text),
    pgflow.complete_step(uuid, text, jsonb, text, text, text),
    pgflow.send_signal(uuid, text, jsonb, text, text, text),
    pgflow.get_step_signal(uuid, text),
    pgflow.get_run_waits(uuid),
    pgflow.get_run_slot(uuid),
    pgflow.get_step_stats(text, timestamptz),
    pgflow.get_run_counts(text, timestamptz, int),
    pgflow.get_queue_stats(),
    pgflow.get_message_due_in(text, bigint[]),
    pgflow.tick(int)
    to pgflow_operator;
end;
$$;

comment on function pgflow._grant_operator_role() is
'Gives role pgflow_operator (an operator or the dashboard: reads state, including workers,
and controls runs) exactly its privileges in schema pgflow: revokes every table and routine
privilege it has there, then grants USAGE on the schema, SELECT on installed_versions,
flows, steps, deps, runs, step_states, step_tasks, permanently_stalled_tasks, run_events,
workers, step_waits, wait_states, signals, test_clock and EXECUTE on version, _now,
_test_clock_now, get_run_with_states, get_run_events, cancel_run, pause_run, resume_run,
retry_run, rerun_flow, skip_step, complete_step, send_signal, get_step_signal,
get_run_waits, get_run_slot, get_step_stats, get_run_counts, get_queue_stats,
get_message_due_in, tick. Idempotent. Raises undefined_object when the role does not exist
(setup_security calls it only when it does). pgflow-py internal.';

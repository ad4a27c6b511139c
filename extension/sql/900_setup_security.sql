-- Security: roles, privileges, SECURITY DEFINER and pinned search paths. Loaded last.
--
-- Everything is applied by one idempotent function, pgflow.setup_security() (with one
-- helper per group role: _grant_worker_role, _grant_client_role, _grant_operator_role,
-- _grant_upstream_worker), called at the end of the install script and at the end of
-- every upgrade script (CREATE OR REPLACE FUNCTION resets SECURITY DEFINER and SET
-- search_path, so an upgrade that replaces a function must call it again afterwards). An
-- administrator calls it again after creating the roles by hand when the installing role
-- could not (no CREATEROLE).
--
-- The model (README "Security", compat/UPSTREAM.md "Deliberate differences"):
-- - PUBLIC gets nothing in schema pgflow (the schema holds engine state).
-- - pgflow_worker (NOLOGIN group role): reads task messages and reports outcomes through
--   functions; pgflow_client: starts runs. Both may read definitions and run state; neither
--   may write a table: every function they may call that writes is SECURITY DEFINER.
-- - Every function runs with search_path = pg_catalog, pg_temp: pg_catalog first, and the
--   session's temporary schema last. An empty search_path is not enough: the temporary
--   schema is then searched *first* for type names, so a caller could shadow jsonb or text
--   with a pg_temp domain whose CHECK runs its own function as the function owner.
--   One exception, pgflow._now(): a one-expression SQL function that the planner inlines
--   only without a SET clause; every name in it is schema-qualified, it writes nothing and
--   runs with the caller's rights.

create function pgflow.setup_security()
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_routine text;
  v_role text;
  v_granted text[] := '{}'::text[];
begin
  -- 1. Pin the search path of every routine of the schema (see the header).
  for v_routine in
    select p.oid::pg_catalog.regprocedure::text
    from pg_catalog.pg_proc as p
    where p.pronamespace = 'pgflow'::pg_catalog.regnamespace and p.prokind in ('f', 'p')
      -- ... but the engine's time source: inlined by the planner only without a SET clause
      -- (every name in it is schema-qualified; extension/sql/033__now.sql).
      and p.oid operator(pg_catalog.<>) 'pgflow._now()'::pg_catalog.regprocedure
    order by 1
  loop
    execute format('alter routine %s set search_path = pg_catalog, pg_temp', v_routine);
  end loop;

  -- 2. Functions the roles call that write run as their owner, so the roles need no table
  --    privilege. (Already SECURITY DEFINER in their own files: get_run_with_states,
  --    start_flow_with_states, requeue_stalled_tasks, recover_stalled_tasks,
  --    setup_requeue_stalled_tasks_cron, prune_data_older_than, schedule_flow,
  --    unschedule_flow, sync_flow_schedule, read_tasks, read_and_start_tasks,
  --    enable_flow_notify, tick, setup_tick_cron.)
  alter function pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz) security definer;
  alter function pgflow.start_tasks(text, bigint[], uuid) security definer;
  alter function pgflow.complete_task(uuid, text, int, jsonb, int) security definer;
  alter function pgflow.complete_tasks(uuid[], text[], int[], jsonb[], int[]) security definer;
  alter function pgflow.fail_task(uuid, text, int, text, int) security definer;
  alter function pgflow.fail_tasks(uuid[], text[], int[], text[], int[], boolean[], text[]) security definer;
  alter function pgflow.ensure_flow_compiled(text, jsonb, boolean) security definer;
  alter function pgflow.sync_flow_options(text, jsonb) security definer;
  alter function pgflow.register_worker(uuid, text, text) security definer;
  alter function pgflow.worker_heartbeat(uuid) security definer;
  alter function pgflow.deprecate_worker(uuid) security definer;
  alter function pgflow.mark_worker_stopped(uuid) security definer;
  alter function pgflow.track_worker_function(text) security definer;
  alter function pgflow.cancel_run(uuid, text, text, text) security definer;
  alter function pgflow.pause_run(uuid, text, text, text) security definer;
  alter function pgflow.resume_run(uuid, text, text, text) security definer;
  alter function pgflow.retry_run(uuid, text, text, text) security definer;
  alter function pgflow.rerun_flow(uuid, text, text, text) security definer;
  alter function pgflow.skip_step(uuid, text, text, text, text) security definer;
  alter function pgflow.complete_step(uuid, text, jsonb, text, text, text) security definer;
  alter function pgflow.send_signal(uuid, text, jsonb, text, text, text) security definer;
  alter function pgflow.get_step_stats(text, timestamptz) security definer;
  alter function pgflow.get_run_counts(text, timestamptz, int) security definer;
  alter function pgflow.get_queue_stats() security definer;
  alter function pgflow.get_message_due_in(text, bigint[]) security definer;

  -- 3. Nothing for PUBLIC (functions are executable by PUBLIC by default).
  revoke all on schema pgflow from public;
  revoke all on all tables in schema pgflow from public;
  revoke all on all sequences in schema pgflow from public;
  revoke all on all routines in schema pgflow from public;

  -- 4. The group roles, when absent and this role may create them. Roles are cluster-wide:
  --    other databases of the cluster share them.
  foreach v_role in array array['pgflow_worker', 'pgflow_client', 'pgflow_operator', 'pgflow_upstream_worker'] loop
    if pg_catalog.to_regrole(v_role) is null then
      begin
        execute format('create role %I nologin', v_role);
      exception
        when duplicate_object or unique_violation then
          null;  -- created meanwhile by an install into another database
        when insufficient_privilege then
          raise notice using
            message = format('pgflow: role %s does not exist and %s may not create it; '
                             'it gets no privileges', v_role, current_user),
            hint = format('As an administrator: CREATE ROLE %s NOLOGIN; then, as the owner of '
                          'schema pgflow: SELECT pgflow.setup_security();', v_role);
      end;
    end if;
  end loop;

  -- 5. Grants, from scratch (a version that grants less also revokes the rest).
  if pg_catalog.to_regrole('pgflow_worker') is not null then
    perform pgflow._grant_worker_role();
    v_granted := v_granted || 'pgflow_worker'::text;
  end if;

  if pg_catalog.to_regrole('pgflow_client') is not null then
    perform pgflow._grant_client_role();
    v_granted := v_granted || 'pgflow_client'::text;
  end if;

  if pg_catalog.to_regrole('pgflow_operator') is not null then
    perform pgflow._grant_operator_role();
    v_granted := v_granted || 'pgflow_operator'::text;
  end if;

  if pg_catalog.to_regrole('pgflow_upstream_worker') is not null then
    perform pgflow._grant_upstream_worker();
    v_granted := v_granted || 'pgflow_upstream_worker'::text;
  end if;

  return v_granted;
end;
$$;

comment on function pgflow.setup_security() is
'Applies pgflow''s privilege model to schema pgflow; idempotent. Pins search_path =
pg_catalog, pg_temp on every function; makes the worker- and client-facing functions that
write SECURITY DEFINER; revokes everything in the schema from PUBLIC; creates the NOLOGIN
group roles pgflow_worker, pgflow_client, pgflow_operator and pgflow_upstream_worker when
absent (without CREATEROLE: a NOTICE per role, and that role gets nothing); then grants
each existing role exactly its privileges. pgflow_worker: USAGE on the schema, SELECT on
installed_versions, flows, steps, deps, runs, step_states, step_tasks,
permanently_stalled_tasks, run_events, step_waits, wait_states and signals, EXECUTE on
version,
ensure_flow_compiled, sync_flow_options, track_worker_function, register_worker, sync_flow_schedule,
enable_flow_notify, read_tasks, read_and_start_tasks, start_tasks, complete_task,
complete_tasks, fail_task, fail_tasks, worker_heartbeat,
recover_stalled_tasks, requeue_stalled_tasks, deprecate_worker, mark_worker_stopped,
cancelled_tasks, get_run_events, get_step_signal, get_run_waits and tick. pgflow_client:
the same USAGE and SELECT, EXECUTE on version, start_flow, start_flow_with_states,
get_run_with_states, get_run_slot, get_run_events, send_signal, get_step_signal, get_run_waits,
get_step_stats and get_run_counts (not the run-control verbs). pgflow_operator: the same USAGE and SELECT plus workers, EXECUTE on
version, get_run_with_states, get_run_slot, get_run_events and the run-control verbs cancel_run,
pause_run, resume_run, retry_run, rerun_flow, skip_step and complete_step, and
send_signal, get_step_signal, get_run_waits, get_step_stats, get_run_counts, get_queue_stats,
get_message_due_in and tick.
pgflow_upstream_worker: what an upstream
pgflow worker needs (_grant_upstream_worker). Returns the roles that got their grants.
Run by the install and upgrade scripts; run it again (as the schema owner) after creating
a missing role. Executable by the owner only. pgflow-py extension.';

select pgflow.setup_security();

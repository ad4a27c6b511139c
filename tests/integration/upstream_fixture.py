"""An upstream-shaped pgflow database, for the adoption tests.

Upstream pgflow 0.14.x installs with its own migrations and keeps no version in the
database. Its schema is ours (compat/UPSTREAM.md: same tables, columns, constraint names,
types, and upstream's functions under upstream's signatures) minus what pgflow-py adds.
So the fixture installs this package's SQL, fills runs in every state through the API, and
then strips what upstream does not have: our tables installed_versions and schedules, view,
extra check and indexes, our public functions, and the trailing
``attempt`` of complete_task / fail_task: upstream's 4-argument forms stand in for them,
working through our complete_tasks / fail_tasks (kept as the stand-ins' internals; a
worker in upstream mode never calls them), so that it can run flows on the fixture. Our
table map_task_inputs stays: the internals standing in for upstream's need it (adoption
creates it only where it is missing).
"""

from __future__ import annotations

import psycopg

import pgflow

#: Upstream's public functions (compat/UPSTREAM.md "Functions"); the others are ours.
UPSTREAM_FUNCTIONS = frozenset(
    [
        "is_valid_slug",
        "calculate_retry_delay",
        "is_local",
        "create_flow",
        "add_step",
        "start_flow",
        "start_flow_with_states",
        "start_ready_steps",
        "cascade_complete_taskless_steps",
        "cascade_resolve_conditions",
        "start_tasks",
        "complete_task",
        "fail_task",
        "maybe_complete_run",
        "set_vt_batch",
        "requeue_stalled_tasks",
        "setup_requeue_stalled_tasks_cron",
        "get_run_with_states",
        "ensure_flow_compiled",
        "delete_flow_and_data",
        "track_worker_function",
        "mark_worker_stopped",
        "prune_data_older_than",
    ]
)

#: Run control's audit trail, and its columns and statuses in upstream's tables (#12).
STRIP_RUN_CONTROL_COLUMNS = """drop table pgflow.run_events cascade;
-- Wait steps and signals (#13): our tables, and upstream has no waiting step.
drop table pgflow.wait_states, pgflow.signals, pgflow.step_waits cascade;
update pgflow.step_states set status = 'created' where status = 'waiting';
-- Upstream leaves the unfinished work of a failed run as it was.
update pgflow.step_states
set status = case when started_at is null then 'created' else 'started' end, cancelled_at = null
where status = 'cancelled';
update pgflow.step_tasks
set status = case when started_at is null then 'queued' else 'started' end, cancelled_at = null
where status = 'cancelled';
alter table pgflow.runs
  drop column cancelled_at, drop column paused_at, drop column rerun_of,
  drop constraint status_is_valid,
  add constraint status_is_valid check (status in ('started', 'failed', 'completed'));
alter table pgflow.step_states
  drop column cancelled_at,
  drop constraint status_is_valid,
  add constraint status_is_valid
    check (status in ('created', 'started', 'completed', 'failed', 'skipped'));
alter table pgflow.step_tasks
  drop column cancelled_at, drop column attempt_offset,
  drop constraint valid_status,
  add constraint valid_status check (status in ('queued', 'started', 'completed', 'failed'));
-- Keyed starts, limits and deadlines (#14): our columns, sequence, table and result type;
-- start_flow, create_flow and add_step under upstream's signatures (stand-ins: this
-- database is not run before it is adopted).
drop table pgflow.throttled_messages;
alter table pgflow.runs
  drop column idempotency_key, drop column concurrency_key, drop column deadline,
  drop column queued_at, drop column queue_seq, drop column expired_at;
drop sequence pgflow.runs_queue_seq;
alter table pgflow.flows
  drop column opt_concurrency_limit, drop column opt_on_limit, drop column opt_run_timeout;
alter table pgflow.steps drop column opt_max_in_flight;
drop function pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz);
drop type pgflow.start_flow_result;
drop function pgflow.create_flow(text, int, int, int, int, text, int);
drop function pgflow.add_step(text, text, text[], int, int, int, int, text, jsonb, jsonb,
  text, text, int);
create function pgflow.start_flow(flow_slug text, input jsonb, run_id uuid default null)
returns setof pgflow.runs language plpgsql as $$
begin
  raise exception 'upstream''s start_flow is not in this fixture';
end
$$;
create function pgflow.create_flow(flow_slug text, max_attempts int default null,
  base_delay int default null, timeout int default null)
returns pgflow.flows language plpgsql as $$
begin
  raise exception 'upstream''s create_flow is not in this fixture';
end
$$;
create function pgflow.add_step(flow_slug text, step_slug text, deps_slugs text[] default '{}',
  max_attempts int default null, base_delay int default null, timeout int default null,
  start_delay int default null, step_type text default 'single',
  required_input_pattern jsonb default null, forbidden_input_pattern jsonb default null,
  when_unmet text default 'skip', when_exhausted text default 'fail')
returns pgflow.steps language plpgsql as $$
begin
  raise exception 'upstream''s add_step is not in this fixture';
end
$$;
"""

STRIP = """
drop type pgflow.run_control_result cascade;
drop type pgflow.signal_result cascade;
drop view pgflow.permanently_stalled_tasks;
drop table pgflow.installed_versions, pgflow.schedules;
alter table pgflow.step_tasks drop constraint pgflow_py_requeued_count_nonnegative;
drop index pgflow.idx_runs_ended_at;
drop index pgflow.idx_step_tasks_permanently_stalled;
drop function pgflow.complete_task(uuid, text, int, jsonb, int);
drop function pgflow.fail_task(uuid, text, int, text, int);
create function pgflow.complete_task(run_id uuid, step_slug text, task_index int, output jsonb)
returns setof pgflow.step_tasks language plpgsql as $$
begin
  perform 1 from pgflow.complete_tasks(array[complete_task.run_id],
    array[complete_task.step_slug], array[complete_task.task_index], array[complete_task.output]);
  return query select t.* from pgflow.step_tasks as t where t.run_id = complete_task.run_id
    and t.step_slug = complete_task.step_slug and t.task_index = complete_task.task_index;
end
$$;
create function pgflow.fail_task(run_id uuid, step_slug text, task_index int, error_message text)
returns setof pgflow.step_tasks language plpgsql as $$
begin
  perform 1 from pgflow.fail_tasks(array[fail_task.run_id], array[fail_task.step_slug],
    array[fail_task.task_index], array[fail_task.error_message]);
  return query select t.* from pgflow.step_tasks as t where t.run_id = fail_task.run_id
    and t.step_slug = fail_task.step_slug and t.task_index = fail_task.task_index;
end
$$;
"""

#: Our public functions, listed from the catalog (names without a leading underscore),
#: but complete_tasks and fail_tasks, on which the 4-argument stand-ins are built.
OURS = """
select p.oid::regprocedure::text from pg_proc as p
where p.pronamespace = 'pgflow'::regnamespace and p.proname !~ '^_'
  and not (p.proname = any(%s)) and p.proname not in ('complete_tasks', 'fail_tasks')
"""


def install_ours(dsn: str) -> None:
    """pgmq and this package's pgflow, as plain SQL (upstream is never an extension)."""
    pgflow.install(dsn, method="sql")


def strip_to_upstream(dsn: str, *, runnable: bool = False) -> None:
    """Remove what pgflow-py adds, leaving an upstream-shaped schema with its runs.

    ``runnable``: the database is to run flows (our worker in upstream mode). Upstream's
    functions are stood in for by ours, which write run control's columns and audit trail,
    so those stay (upstream's callers never read them); the rest is stripped as usual.
    """
    with psycopg.connect(dsn) as conn:
        conn.execute(STRIP)
        if not runnable:
            conn.execute(STRIP_RUN_CONTROL_COLUMNS)
        for (signature,) in conn.execute(OURS, (sorted(UPSTREAM_FUNCTIONS),)).fetchall():
            conn.execute(f"drop function {signature}")

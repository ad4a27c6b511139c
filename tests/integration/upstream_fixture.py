"""An upstream-shaped pgflow database, for the adoption tests.

Upstream pgflow 0.14.x installs with its own migrations and keeps no version in the
database. Its schema is ours (compat/UPSTREAM.md: same tables, columns, constraint names,
types, and upstream's functions under upstream's signatures) minus what pgflow-py adds.
So the fixture installs this package's SQL, fills runs in every state through the API, and
then strips what upstream does not have: our tables (installed_versions, schedules,
map_task_inputs), view, extra check and indexes, our public functions, and the trailing
``attempt`` of complete_task / fail_task (upstream's 4-argument forms stand in for them;
their bodies do not matter: adoption replaces them).
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

STRIP = """
drop view pgflow.permanently_stalled_tasks;
drop table pgflow.installed_versions, pgflow.schedules, pgflow.map_task_inputs;
alter table pgflow.step_tasks drop constraint pgflow_py_requeued_count_nonnegative;
drop index pgflow.idx_runs_ended_at, pgflow.idx_step_tasks_permanently_stalled;
drop function pgflow.complete_task(uuid, text, int, jsonb, int);
drop function pgflow.fail_task(uuid, text, int, text, int);
create function pgflow.complete_task(run_id uuid, step_slug text, task_index int, output jsonb)
returns setof pgflow.step_tasks language sql as 'select * from pgflow.step_tasks where false';
create function pgflow.fail_task(run_id uuid, step_slug text, task_index int, error_message text)
returns setof pgflow.step_tasks language sql as 'select * from pgflow.step_tasks where false';
"""

#: Our public functions, listed from the catalog (names without a leading underscore).
OURS = """
select p.oid::regprocedure::text from pg_proc as p
where p.pronamespace = 'pgflow'::regnamespace and p.proname !~ '^_' and not (p.proname = any(%s))
"""


def install_ours(dsn: str) -> None:
    """pgmq and this package's pgflow, as plain SQL (upstream is never an extension)."""
    pgflow.install(dsn, method="sql")


def strip_to_upstream(dsn: str) -> None:
    """Remove what pgflow-py adds, leaving an upstream-shaped schema with its runs."""
    with psycopg.connect(dsn) as conn:
        conn.execute(STRIP)
        for (signature,) in conn.execute(OURS, (sorted(UPSTREAM_FUNCTIONS),)).fetchall():
            conn.execute(f"drop function {signature}")

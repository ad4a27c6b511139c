"""Runs that fail, made through the SQL API alone (no worker), for the run-control tests."""

from __future__ import annotations

import uuid

import psycopg


def define_one_step(
    conn: psycopg.Connection, slug: str, max_attempts: int = 1, base_delay: int = 0
) -> None:
    """A flow with one single step ``only``."""
    conn.execute(
        "select pgflow.create_flow(%s, max_attempts => %s, base_delay => %s)",
        (slug, max_attempts, base_delay),
    )
    conn.execute("select pgflow.add_step(%s, 'only')", (slug,))


def start_run(conn: psycopg.Connection, slug: str, flow_input: str = "{}") -> str:
    """Start a run of ``slug`` as the owner and return its id."""
    row = conn.execute("select run_id from pgflow.start_flow(%s, %s::jsonb)", (slug, flow_input))
    return str(row.fetchone()[0])


def fail_attempt(conn: psycopg.Connection, slug: str, error: str) -> str:
    """Claim the one visible task of flow ``slug`` and report it failed; return its run id.

    With attempts left the task is queued again (a retry); else its step and run fail.
    """
    worker_id = uuid.uuid4()
    conn.execute("select pgflow.register_worker(%s, %s, 'test-run-control')", (worker_id, slug))
    msg = conn.execute("select msg_id from pgmq.read(%s, 30, 1)", (slug,)).fetchone()
    assert msg is not None, f"no visible task on queue {slug}"
    run_id, step_slug, task_index = conn.execute(
        "select run_id, step_slug, task_index from pgflow.start_tasks(%s, %s, %s)",
        (slug, [msg[0]], worker_id),
    ).fetchone()
    conn.execute("select pgflow.fail_task(%s, %s, %s, %s)", (run_id, step_slug, task_index, error))
    return str(run_id)


def failed_run(conn: psycopg.Connection, slug: str, error: str) -> str:
    """Start a run of one-step flow ``slug`` (max_attempts 1) and fail it with ``error``."""
    run_id = start_run(conn, slug)
    assert fail_attempt(conn, slug, error) == run_id
    return run_id


def run_status(conn: psycopg.Connection, run_id: str) -> str:
    row = conn.execute("select status from pgflow.runs where run_id = %s", (run_id,))
    return row.fetchone()[0]


def step_status(conn: psycopg.Connection, run_id: str, step_slug: str) -> str:
    row = conn.execute(
        "select status from pgflow.step_states where run_id = %s and step_slug = %s",
        (run_id, step_slug),
    )
    return row.fetchone()[0]

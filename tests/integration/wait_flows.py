"""Flows with wait steps defined through the SQL API alone (no worker), for the client, CLI
and tick tests: a step that waits for a signal, a timer, and a step after each."""

from __future__ import annotations

import psycopg

from tests.integration.failing_runs import start_run


def define_approval_flow(
    conn: psycopg.Connection,
    slug: str = "approvals",
    timeout: int | None = 86400,
    on_timeout: str = "fail",
    runs_handler: bool = False,
) -> None:
    """``approve`` (root) waits for signal ``approved`` (at most ``timeout`` s), then
    ``ship`` runs after it. Without handler, ``approve`` completes with the payload."""
    conn.execute("select pgflow.create_flow(%s)", (slug,))
    conn.execute("select pgflow.add_step(%s, 'approve')", (slug,))
    conn.execute(
        "select pgflow.add_wait(%s, 'approve', 'approved', timeout => %s, on_timeout => %s,"
        " runs_handler => %s)",
        (slug, timeout, on_timeout, runs_handler),
    )
    conn.execute("select pgflow.add_step(%s, 'ship', array['approve'])", (slug,))


def define_timer_flow(conn: psycopg.Connection, slug: str = "cooling", seconds: int = 3600) -> None:
    """``cool_off`` (root) sleeps ``seconds``, then ``after`` runs."""
    conn.execute("select pgflow.create_flow(%s)", (slug,))
    conn.execute("select pgflow.add_step(%s, 'cool_off')", (slug,))
    conn.execute("select pgflow.add_timer(%s, 'cool_off', seconds => %s)", (slug, seconds))
    conn.execute("select pgflow.add_step(%s, 'after', array['cool_off'])", (slug,))


def start_waiting_run(
    conn: psycopg.Connection, slug: str = "approvals", step_slug: str = "approve"
) -> str:
    """Start a run of a flow of this module; its root step ``step_slug`` is then waiting."""
    run_id = start_run(conn, slug)
    (status,) = conn.execute(
        "select status from pgflow.step_states where run_id = %s and step_slug = %s",
        (run_id, step_slug),
    ).fetchone()
    assert status == "waiting", status
    return run_id


def move_deadline_past(conn: psycopg.Connection, run_id: str, step_slug: str) -> None:
    """Make a wait's deadline pass without waiting: set it one second in the past."""
    updated = conn.execute(
        "update pgflow.wait_states set deadline = now() - interval '1 second'"
        " where run_id = %s and step_slug = %s and resolved_at is null",
        (run_id, step_slug),
    ).rowcount
    assert updated == 1


def signal_count(conn: psycopg.Connection, run_id: str) -> int:
    """How many signals the run has stored."""
    (count,) = conn.execute(
        "select count(*) from pgflow.signals where run_id = %s", (run_id,)
    ).fetchone()
    return count

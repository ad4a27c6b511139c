"""The handler's traceback of a failed attempt, stored in its ``task:failed`` event: sent by
a real worker, and by the worker's report statements against the real fail_tasks.
"""

from __future__ import annotations

import uuid
from typing import Any

import psycopg

from pgflow import Client
from pgflow.worker import queries
from tests.integration.worker_harness import start_flow, step_states, wait_run


def failed_events(dsn: str, run_id: str) -> dict[tuple[str, int], dict[str, Any]]:
    """(step_slug, task_index) -> details of its task:failed event, read with the client."""
    with Client(dsn) as client:
        events = client.events(run_id)
    failed = [e for e in events if e.event == "task:failed"]
    keyed = {(e.step_slug or "", e.task_index or 0): e.details for e in failed}
    assert len(keyed) == len(failed), "one failed attempt per task expected"
    return keyed


def test_a_worker_stores_the_handlers_traceback_in_the_failed_event(
    pgflow_dsn, pgflow_conn, start_worker
):
    worker = start_worker("failures:errors")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "errors", {})
    assert wait_run(pgflow_conn, run_id)["status"] == "completed"

    events = failed_events(pgflow_dsn, run_id)
    raised = events[("raises", 0)]
    # the error text is unchanged; the traceback names the handler and the line that raised
    assert raised["error_message"] == "ValueError: nope"
    assert raised["traceback"].startswith("Traceback (most recent call last):")
    assert ", in raises\n" in raised["traceback"]
    assert 'raise ValueError("nope")' in raised["traceback"]
    assert raised["traceback"].rstrip().endswith("ValueError: nope")
    assert step_states(pgflow_conn, run_id)["raises"]["error_message"] == "ValueError: nope"
    # an output that is not JSON, or that the database refused: no traceback
    for slug in ("returns_set", "returns_nan", "returns_nul"):
        assert "traceback" not in events[(slug, 0)], slug
        assert events[(slug, 0)]["error_message"].startswith(("TypeError: ", "Untranslatable"))


def claim_tasks(conn: psycopg.Connection, flow_slug: str, run_input: str) -> str:
    """Start a run of ``flow_slug`` and claim all its queued tasks; return the run id."""
    row = conn.execute(
        "select run_id::text from pgflow.start_flow(%s, %s::jsonb)", (flow_slug, run_input)
    ).fetchone()
    assert row is not None
    worker_id = uuid.uuid4()
    conn.execute("select pgflow.register_worker(%s, %s, 'test')", (worker_id, flow_slug))
    read = conn.execute("select msg_id from pgmq.read(%s, 30, 10)", (flow_slug,))
    msg_ids = [r[0] for r in read]
    conn.execute(
        "select count(*) from pgflow.start_tasks(%s, %s, %s)", (flow_slug, msg_ids, worker_id)
    )
    return str(row[0])


def test_the_worker_statements_send_tracebacks_to_fail_tasks(pgflow_dsn, pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('tb_map', max_attempts => 2)")
    pgflow_conn.execute("select pgflow.add_step('tb_map', 'items', step_type => 'map')")

    # a group: one traceback, one None (NULL element)
    grouped = claim_tasks(pgflow_conn, "tb_map", "[1, 2]")
    rows = pgflow_conn.execute(
        queries.FAIL_TASKS,
        {
            "run_ids": [grouped, grouped],
            "step_slugs": ["items", "items"],
            "task_indexes": [0, 1],
            "payloads": ["E: zero", "E: one"],
            "attempts": [1, 1],
            "permanents": [False, False],
            "tracebacks": ["tb of 0", None],
        },
    ).fetchall()
    assert [r[1] for r in rows] == ["retried", "retried"]
    events = failed_events(pgflow_dsn, grouped)
    assert events[("items", 0)]["traceback"] == "tb of 0"
    assert "traceback" not in events[("items", 1)]

    # a group none of whose reports has one (the batcher sends NULL), and a lone report
    bare = claim_tasks(pgflow_conn, "tb_map", "[1, 2]")
    rows = pgflow_conn.execute(
        queries.FAIL_TASKS,
        {
            "run_ids": [bare, bare],
            "step_slugs": ["items", "items"],
            "task_indexes": [0, 1],
            "payloads": ["E: zero", "E: one"],
            "attempts": [1, 1],
            "permanents": [False, True],
            "tracebacks": None,
        },
    ).fetchall()
    assert [r[1] for r in rows] == ["retried", "failed"]
    assert all("traceback" not in d for d in failed_events(pgflow_dsn, bare).values())

    lone = claim_tasks(pgflow_conn, "tb_map", "[1]")
    row = pgflow_conn.execute(
        queries.FAIL_TASKS_ONE_REPORT,
        {
            "run_id": lone,
            "step_slug": "items",
            "task_index": 0,
            "payload": "E: lone",
            "attempt": 1,
            "permanent": False,
            "traceback": "tb lone",
        },
    ).fetchone()
    assert row is not None and row[1] == "retried"
    assert failed_events(pgflow_dsn, lone)[("items", 0)] == {
        "attempt": 1,
        "error_message": "E: lone",
        "retry": True,
        "traceback": "tb lone",
    }

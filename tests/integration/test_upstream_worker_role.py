"""Role ``pgflow_upstream_worker``: an upstream pgflow 0.14.x worker's own statements run
under it, and nothing more.

An upstream (TypeScript) worker does not use our worker functions: it inserts and updates
its ``pgflow.workers`` row itself, reads messages with ``pgmq.read_with_poll`` and reports
with the 4-argument ``complete_task`` / ``fail_task``. ``pgflow_worker`` cannot do the
first two (``permission denied for table workers``); the install creates this role for it.
The statements below are the ones upstream's worker sends, in its order (startup, poll,
start_tasks, report, heartbeat, stop).
"""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from psycopg import errors
from psycopg.types.json import Jsonb

SHAPE = {
    "steps": [
        {"slug": "first", "stepType": "single", "dependencies": []},
        {"slug": "second", "stepType": "single", "dependencies": ["first"]},
    ],
    "options": {"maxAttempts": 2, "baseDelay": 0},
}


def scalar(conn: psycopg.Connection[Any], query: Any, params: Any = None) -> Any:
    row = conn.execute(query, params).fetchone()
    return None if row is None else row[0]


def poll_and_start(worker: psycopg.Connection[Any], worker_id: str) -> tuple[Any, ...]:
    """Upstream's two-phase poll: read_with_poll, then start_tasks with the message ids."""
    messages = worker.execute(
        "select msg_id from pgmq.read_with_poll(queue_name => 'upstream_flow', vt => 5, "
        "qty => 10, max_poll_seconds => 1, poll_interval_ms => 50)"
    ).fetchall()
    rows = worker.execute(
        "select run_id, step_slug, task_index from pgflow.start_tasks('upstream_flow', %s, %s)",
        ([m[0] for m in messages], worker_id),
    ).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def test_an_upstream_worker_runs_a_flow_under_the_role(pgflow_conn, login_role):
    worker_id = str(uuid.uuid4())
    with psycopg.connect(login_role("pgflow_upstream_worker"), autocommit=True) as worker:
        # startup: its own worker row, the deployment name, compilation
        worker.execute(
            "insert into pgflow.workers (worker_id, queue_name, function_name) "
            "values (%s, 'upstream_flow', 'upstream-fn')",
            (worker_id,),
        )
        worker.execute("select pgflow.track_worker_function('upstream-fn')")
        compiled = scalar(
            worker, "select pgflow.ensure_flow_compiled('upstream_flow', %s)", (Jsonb(SHAPE),)
        )
        run_id = scalar(
            pgflow_conn, "select run_id from pgflow.start_flow('upstream_flow', '{\"n\": 7}')"
        )
        # a failure (retried at once: base delay 0), then two completions
        failed = scalar(
            worker,
            "select status from pgflow.fail_task(%s, %s, %s, 'Error: boom')",
            poll_and_start(worker, worker_id),
        )
        completed = [
            scalar(
                worker,
                "select status from pgflow.complete_task(%s, %s, %s, %s)",
                (*poll_and_start(worker, worker_id), Jsonb({"ok": n})),
            )
            for n in (1, 2)
        ]
        # the flow input a handler asks for, a heartbeat, then shutdown
        flow_input = scalar(worker, "select input from pgflow.runs where run_id = %s", (run_id,))
        deprecated = worker.execute(
            "update pgflow.workers set last_heartbeat_at = now() where worker_id = %s "
            "returning deprecated_at",
            (worker_id,),
        ).fetchone()
        worker.execute(
            "update pgflow.workers set deprecated_at = now() where worker_id = %s", (worker_id,)
        )
        worker.execute("select pgflow.mark_worker_stopped(%s)", (worker_id,))

    assert compiled["status"] == "compiled"
    assert (failed, completed) == ("queued", ["completed", "completed"])
    assert (flow_input, deprecated) == ({"n": 7}, (None,))
    run = pgflow_conn.execute(
        "select status, output from pgflow.runs where run_id = %s", (run_id,)
    ).fetchone()
    assert run == ("completed", {"second": {"ok": 2}})
    stopped = pgflow_conn.execute(
        "select deprecated_at is not null, stopped_at is not null from pgflow.workers "
        "where worker_id = %s",
        (worker_id,),
    ).fetchone()
    assert stopped == (True, True)


def test_setup_security_grants_the_queues_of_flows_created_before(pgflow_conn, login_role):
    pgflow_conn.execute("select pgflow.create_flow('upstream_flow')")
    pgflow_conn.execute("select pgflow.add_step('upstream_flow', 'only')")
    pgflow_conn.execute("revoke all on pgmq.q_upstream_flow from pgflow_upstream_worker")
    with psycopg.connect(login_role("pgflow_upstream_worker"), autocommit=True) as worker:
        with pytest.raises(errors.InsufficientPrivilege):
            worker.execute("select * from pgmq.read('upstream_flow', 5, 1)")
        roles = scalar(pgflow_conn, "select pgflow.setup_security()")
        assert "pgflow_upstream_worker" in roles
        assert worker.execute("select * from pgmq.read('upstream_flow', 5, 1)").fetchall() == []


@pytest.mark.parametrize(
    "statement",
    [
        "select pgflow.start_flow('upstream_flow', '{}')",
        "update pgflow.runs set status = 'failed'",
        "update pgflow.step_tasks set status = 'completed'",
        "delete from pgflow.workers",
        "select pgflow.delete_flow_and_data('upstream_flow')",
        "select pgflow.create_flow('another')",
        "select pgflow.prune_data_older_than('0 seconds')",
        "select pgmq.send('upstream_flow', '{}')",
        "select * from pgmq.read('other_queue', 5, 1)",
    ],
)
def test_the_role_cannot_do_more(pgflow_conn, login_role, statement):
    pgflow_conn.execute("select pgflow.ensure_flow_compiled('upstream_flow', %s)", (Jsonb(SHAPE),))
    pgflow_conn.execute("select pgmq.create('other_queue')")
    with (
        psycopg.connect(login_role("pgflow_upstream_worker"), autocommit=True) as worker,
        pytest.raises(errors.InsufficientPrivilege),
    ):
        worker.execute(statement)

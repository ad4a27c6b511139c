"""Run control through a real worker: a failure no retry can cure (PermanentError, an output
that is not JSON) fails its task at its first attempt although attempts remain; in upstream
mode, whose SQL has no such notion, it is an ordinary failure and is retried.

Without a database: tests/unit/test_worker_permanent_failures.py; cancelled runs end to
end: tests/e2e/test_cancelled_run.py.
"""

from __future__ import annotations

import psycopg

from tests.integration.test_upstream_mode import upstream_database
from tests.integration.worker_harness import (
    WorkerProcess,
    start_flow,
    step_states,
    step_tasks,
    wait_for,
    wait_run,
)


def failure_lines(worker: WorkerProcess, count: int) -> list[dict]:
    """The worker's "task failed" log lines, once there are ``count`` of them."""
    return wait_for(
        lambda: (
            (lines := [e for e in worker.logs() if e.get("msg") == "task failed"])
            and len(lines) >= count
            and lines
        ),
        what=f"{count} 'task failed' log lines",
    )


def test_a_permanent_failure_fails_the_task_at_its_first_attempt(pgflow_conn, start_worker):
    worker = start_worker("run_control:permanent", "run_control:not_json")
    worker.wait_running()
    refused = start_flow(pgflow_conn, "permanent", {"amount": -5})
    not_json = start_flow(pgflow_conn, "not_json", {})

    run = wait_run(pgflow_conn, refused)
    assert run["status"] == "failed"
    (task,) = step_tasks(pgflow_conn, refused)
    assert (task["step_slug"], task["status"], task["attempts_count"]) == ("charge", "failed", 1)
    assert task["error_message"] == "PermanentError: amount -5 is negative (attempt 1)"
    states = step_states(pgflow_conn, refused)
    assert states["charge"]["status"] == "failed"
    assert states["receipt"]["status"] == "cancelled"  # with its failed run, never started
    assert states["receipt"]["started_at"] is None

    run = wait_run(pgflow_conn, not_json)
    assert run["status"] == "failed"
    (task,) = step_tasks(pgflow_conn, not_json)
    assert (task["status"], task["attempts_count"]) == ("failed", 1)
    assert task["error_message"].startswith(
        "TypeError: handler output is not JSON-serialisable (set): "
    )

    failed = failure_lines(worker, 2)
    assert sorted(e["step_slug"] for e in failed) == ["charge", "returns_a_set"]
    assert all(e["permanent"] is True and e["outcome"] == "failed" for e in failed)


def test_in_upstream_mode_a_permanent_error_is_retried_as_an_ordinary_failure(
    empty_db, start_worker
):
    dsn = upstream_database(empty_db())
    worker = start_worker(
        "run_control:permanent",
        "--no-listen",
        "--poll-interval",
        "0.2",
        "--heartbeat-interval",
        "0.2",
        dsn=dsn,
    )
    worker.wait_running()

    with psycopg.connect(dsn, autocommit=True) as conn:
        run = wait_run(conn, start_flow(conn, "permanent", {"amount": -1}), timeout=60)
        (task,) = step_tasks(conn, run["run_id"])

    assert run["status"] == "failed"
    assert task["attempts_count"] == 3  # every attempt spent: upstream's fail_task retried
    assert task["error_message"] == "PermanentError: amount -1 is negative (attempt 3)"
    # The worker took it for permanent; upstream's SQL, which cannot know, retried it.
    failed = failure_lines(worker, 3)
    assert [(e["permanent"], e["outcome"]) for e in failed] == [
        (True, "retried"),
        (True, "retried"),
        (True, "failed"),
    ]
    # The last failed attempt is logged at ERROR ("task failed"); nothing else is an error.
    assert not [
        e for e in worker.logs() if e.get("level") == "error" and e.get("msg") != "task failed"
    ]

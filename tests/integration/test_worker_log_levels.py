"""What a real worker logs at INFO and above while it runs 100+ tasks with retries: its
lifecycle, each failed attempt once with its traceback (WARNING when retried, ERROR when
it was the last), the stalled tasks its tick requeued (WARNING, with the tasks), and a
summary line every ``--log-summary-interval`` seconds whose numbers add up to what the
database recorded; no line per task (those are DEBUG).

Flows: tests/integration/test_worker_metrics.py.
"""

from __future__ import annotations

from typing import Any

import psycopg

from tests.integration.stalled_tasks import setup_stalled_run
from tests.integration.test_worker_metrics import BATCH, DOOMED, failures_expected
from tests.integration.worker_harness import start_flow, wait_for, wait_run

#: Lifecycle lines at INFO and above, at most (start, flows, registration, NOTIFY, ...).
LIFECYCLE_LINES = 20
LOUD = ("info", "warning", "error", "critical")


def is_summary(entry: dict[str, Any]) -> bool:
    return str(entry.get("msg", "")).startswith("last ") and "in_flight" in entry


def failed_attempts(conn: psycopg.Connection) -> dict[tuple[str, str, int, int], dict[str, Any]]:
    """(run_id, step_slug, task_index, attempt) -> details of each task:failed event."""
    rows = conn.execute(
        "select run_id::text, step_slug, task_index, details from pgflow.run_events "
        "where event = 'task:failed'"
    ).fetchall()
    return {(r, s, i, d["attempt"]): d for r, s, i, d in rows}


def test_info_carries_lifecycle_failures_requeues_and_a_summary_not_tasks(
    pgflow_conn: psycopg.Connection, start_worker: Any
):
    # A task of another flow that a dead worker left started 60 s ago: the tick requeues it.
    stalled_run = setup_stalled_run(pgflow_conn)
    worker = start_worker(
        BATCH,
        DOOMED,
        "--log-summary-interval",
        "1",
        "--tick-interval",
        "0.5",
        "--poll-interval",
        "0.2",
    )
    worker.wait_running()
    counts = (40, 40, 30)
    runs = [start_flow(pgflow_conn, "metrics_batch", {"count": n}) for n in counts]
    doomed_run = start_flow(pgflow_conn, "metrics_doomed", {})
    for run_id in runs:
        assert wait_run(pgflow_conn, run_id)["status"] == "completed"
    assert wait_run(pgflow_conn, doomed_run)["status"] == "failed"

    (completed,) = pgflow_conn.execute(
        "select count(*) from pgflow.step_tasks where status = 'completed' "
        "and flow_slug in ('metrics_batch', 'metrics_doomed')"
    ).fetchone()
    assert completed == sum(counts) + 3 * len(counts)  # map elements + 3 single steps a run
    failures = failed_attempts(pgflow_conn)
    assert len(failures) == sum(failures_expected(n) for n in counts) + 1

    # The summary lines add up to what the database recorded (the last active interval's
    # line comes at most an interval after the runs ended).
    def summaries() -> list[dict[str, Any]] | None:
        lines = [e for e in worker.logs() if is_summary(e)]
        return lines if sum(e["completed"] for e in lines) >= completed else None

    lines = wait_for(summaries, timeout=15, what="summary lines counting every completed task")
    assert sum(e["completed"] for e in lines) == completed
    assert sum(e["failed"] for e in lines) == len(failures)
    assert sum(e["retried"] for e in lines) == len(failures) - 1
    assert sum(e["requeued"] for e in lines) == 1
    assert {e["level"] for e in lines} == {"info"}
    busy = next(e for e in lines if e["completed"])
    assert busy["msg"].startswith(f"last {busy['interval_s']:.1f}".removesuffix(".0") + " s: ")
    assert f"{busy['completed']:,} tasks completed" in busy["msg"]

    entries = worker.logs()
    assert all("raw" not in e for e in entries), worker.text()
    loud = [e for e in entries if e.get("level") in LOUD]
    assert not [e for e in entries if e.get("msg") in ("task started", "task completed")]

    # Each failed attempt: one line, with the handler's traceback, at the right level.
    failed_lines = [e for e in loud if e["msg"] == "task failed"]
    logged = {(e["run_id"], e["step_slug"], e["task_index"], e["attempt"]) for e in failed_lines}
    assert len(failed_lines) == len(logged) == len(failures)
    assert logged == set(failures)
    for entry in failed_lines:
        details = failures[
            (entry["run_id"], entry["step_slug"], entry["task_index"], entry["attempt"])
        ]
        assert entry["level"] == ("warning" if details["retry"] else "error"), entry
        assert entry["error"] == details["error_message"]
        assert entry["exc"].startswith("Traceback (most recent call last)")
        assert f"in {entry['step_slug']}\n" in entry["exc"]  # the handler's own frame
        assert entry["exc"].rstrip().endswith(entry["error"])

    # The requeue made by the tick, with the task it requeued.
    (requeue,) = [e for e in loud if e["msg"] == "stalled tasks requeued"]
    assert requeue["level"] == "warning"
    assert requeue["requeued"] == 1
    assert requeue["tasks"] == [
        {
            "flow_slug": "race",
            "run_id": stalled_run,
            "step_slug": "only",
            "task_index": 0,
            "requeued_count": 1,
        }
    ]

    # Everything else at INFO and above is the worker's lifecycle: bounded, whatever the
    # number of tasks (before, two INFO lines per task attempt).
    others = [e for e in loud if e not in failed_lines and e is not requeue and not is_summary(e)]
    assert len(others) <= LIFECYCLE_LINES, [e["msg"] for e in others]
    assert {"worker running", "serving flows"} <= {e["msg"] for e in others}
    assert len(loud) < completed / 2

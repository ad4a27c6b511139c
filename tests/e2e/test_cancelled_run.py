"""A run cancelled while its handlers run, through a real worker: at its next heartbeat the
worker learns it (``pgflow.cancelled_tasks``), cancels the ``async def`` handler
(``asyncio.CancelledError`` inside it) and sets ``ctx.cancelled`` for both; nothing of the
cancelled run is reported as done or failed, each task is logged once at INFO as
``result discarded: run cancelled``, and the worker goes on serving the same flow.

Unit tests of the same behaviour: tests/unit/test_worker_cancelled_tasks.py and
tests/unit/test_worker_cancellation_check.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.worker_harness import (
    run_row,
    start_flow,
    step_tasks,
    wait_for,
    wait_run,
)

pytestmark = pytest.mark.e2e

FLOW = "tests.e2e.flows.cancellable:cancellable"
STEPS = ("waits_async", "waits_sync")


def test_a_cancelled_run_tells_its_handlers_and_the_worker_goes_on(
    pgflow_conn, start_worker, tmp_path: Path
):
    markers = tmp_path / "markers"
    markers.mkdir()
    worker = start_worker(FLOW, "--heartbeat-interval", "0.2", env={"E2E_MARKER_DIR": str(markers)})
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "cancellable", {"seconds": 60})

    def marker(step: str, what: str) -> Path:
        return markers / f"{run_id}.{step}.{what}"

    for step in STEPS:
        wait_for(marker(step, "started").exists, what=f"{step} to start")
    (result,) = pgflow_conn.execute(
        "select status, changed from pgflow.cancel_run(%s, 'e2e-test', 'no longer needed')",
        (run_id,),
    ).fetchall()
    assert result == ("cancelled", True)

    # Both handlers are told; the async one through CancelledError, after ctx.cancelled.
    for step in STEPS:
        wait_for(marker(step, "cancelled").exists, what=f"{step} to learn of the cancellation")
        assert marker(step, "cancelled").read_text() == "True"
    discarded = wait_for(
        lambda: len(lines := discarded_lines(worker)) >= 2 and lines,
        what="two 'result discarded' log lines",
    )

    # The worker goes on: a quick run of the same flow completes.
    again = start_flow(pgflow_conn, "cancellable", {"seconds": 0})
    run = wait_run(pgflow_conn, again)
    assert run["status"] == "completed"
    assert run["output"] == {"waits_async": "slept", "waits_sync": {"told": False}}

    # Once per task, at INFO, naming the cancelled run; no report changed its tasks.
    assert discarded_lines(worker) == discarded
    assert sorted(e["step_slug"] for e in discarded) == sorted(STEPS)
    assert all(
        e["level"] == "info" and e["run_id"] == run_id and e["reason"] == "run_cancelled"
        for e in discarded
    )
    assert run_row(pgflow_conn, run_id)["status"] == "cancelled"
    assert [(t["status"], t["attempts_count"]) for t in step_tasks(pgflow_conn, run_id)] == [
        ("cancelled", 1),
        ("cancelled", 1),
    ]
    problems = [
        e
        for e in worker.logs()
        if e.get("level") in ("warning", "error") or e.get("msg") == "task failed"
    ]
    assert problems == []
    assert worker.proc.poll() is None


def discarded_lines(worker) -> list[dict]:
    """The worker's "result discarded" log lines."""
    return [e for e in worker.logs() if str(e.get("msg", "")).startswith("result discarded")]

"""Hostile handlers: one hangs past its timeout, one raises, one returns a value that is not
JSON, and two ``async def`` handlers block the event loop with ``time.sleep`` (one within
its timeout, one past it). The worker stays healthy: it reports each outcome, its
heartbeat goes on (it pauses only while the loop is blocked), other runs complete, and a
watchdog names the handler that blocks the loop.

Single-fault versions (exact error texts, sync timeouts) are in
tests/integration/test_worker_failures.py.
"""

from __future__ import annotations

import pytest

from tests.integration.worker_harness import (
    start_flow,
    step_states,
    wait_for,
    wait_run,
    worker_rows,
)

pytestmark = pytest.mark.e2e

FLOWS = ("tests.e2e.flows.faults:misbehaving", "tests.e2e.flows.faults:steady")


def _heartbeat(conn):
    return worker_rows(conn, "misbehaving")[0]["last_heartbeat_at"]


def test_hostile_handlers_fail_their_tasks_and_the_worker_stays_healthy(pgflow_conn, start_worker):
    worker = start_worker(*FLOWS, "--heartbeat-interval", "0.2", "--max-concurrency", "20")
    worker.wait_running()
    hostile = start_flow(pgflow_conn, "misbehaving", {})
    steady = [start_flow(pgflow_conn, "steady", list(range(10))) for _ in range(3)]

    run = wait_run(pgflow_conn, hostile, timeout=60)
    assert run["status"] == "completed"
    assert run["output"] == {"blocks_loop": "blocked 2 s"}
    states = step_states(pgflow_conn, hostile)
    assert {slug: s["status"] for slug, s in states.items()} == {
        "hangs": "skipped",
        "raises": "skipped",
        "not_json": "skipped",
        "blocks_loop": "completed",
        "blocks_past_timeout": "skipped",
    }
    assert states["hangs"]["error_message"] == (
        "TimeoutError: handler exceeded the step timeout of 3 s"
    )
    assert states["raises"]["error_message"] == "RuntimeError: handler bug"
    assert states["not_json"]["error_message"].startswith(
        "TypeError: handler output is not JSON-serialisable (object): "
    )
    assert states["blocks_past_timeout"]["error_message"] == (
        "TimeoutError: handler exceeded the step timeout of 3 s "
        "(it blocked the event loop, so it could not be interrupted)"
    )

    # Other work went through, before, during and after the blocking.
    for run_id in steady:
        assert wait_run(pgflow_conn, run_id, timeout=30)["output"] == {"tick": list(range(10))}

    # The watchdog named each loop blocker while it blocked, and saw the loop recover.
    blocked = [e for e in worker.logs() if e.get("msg", "").startswith("event loop blocked")]
    assert {e.get("step_slug") for e in blocked} == {"blocks_loop", "blocks_past_timeout"}
    assert all(e["run_id"] == hostile for e in blocked)
    # (the two may block back to back: one episode, two blockers named)
    recovered = worker.wait_log("event loop running again after being blocked")
    assert recovered["blocked_for_s"] >= 1
    assert worker.has_log("async handler blocked the event loop past its timeout; result discarded")

    # Still alive and beating (the heartbeat paused only while the loop was blocked) ...
    assert worker.proc.poll() is None
    seen = _heartbeat(pgflow_conn)
    wait_for(lambda: _heartbeat(pgflow_conn) > seen, timeout=10, what="a heartbeat")
    # ... and serving.
    again = start_flow(pgflow_conn, "steady", [7])
    assert wait_run(pgflow_conn, again, timeout=20)["output"] == {"tick": [7]}
    assert not [e for e in worker.logs() if e.get("msg") == "task runner crashed"]

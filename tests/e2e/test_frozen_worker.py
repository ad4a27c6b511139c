"""A worker frozen by SIGSTOP past the stall threshold, then resumed: reports are fenced
by attempt.

Worker A claims every task of a run and is frozen (SIGSTOP) while its handlers run. Its
tasks stall: instead of waiting the step timeout + 30 s, the test moves their
``started_at`` back (only time is simulated; the freeze, the requeue, the second claim and
the resume are real). Worker B requeues them (requeue_stalled_tasks), claims them as
attempt 2 and completes the run. Then A is resumed: its handlers finish in their own time
(the freeze does not count against their timeout) and A reports them as attempt 1, which
SQL ignores (``stale_attempt``). Every task keeps attempt 2's output and nothing fails,
although with ``max_attempts 2`` a late failure report of attempt 1 applied to the task
would have failed the run.
"""

from __future__ import annotations

import signal
import time

import pytest

from tests.integration.worker_harness import start_flow, step_tasks, wait_for, wait_run

pytestmark = pytest.mark.e2e

FROZEN = "tests.e2e.flows.faults:frozen"
ITEMS = [1, 2, 3, 4, 5]


def test_frozen_worker_resumed_after_its_tasks_moved_on_changes_nothing(pgflow_conn, start_worker):
    a = start_worker(FROZEN, "--max-concurrency", "10", env={"E2E_HOLD_SECONDS": "2"})
    a.wait_running()
    run_id = start_flow(pgflow_conn, "frozen", ITEMS)
    wait_for(
        lambda: [t["status"] for t in step_tasks(pgflow_conn, run_id)] == ["started"] * len(ITEMS),
        what="worker A to claim every task",
    )
    a.signal(signal.SIGSTOP)
    frozen_at = time.monotonic()
    try:
        # The claims of A are now older than the step timeout + 30 s (database clock).
        pgflow_conn.execute(
            "update pgflow.step_tasks set queued_at = queued_at - interval '60 seconds', "
            "started_at = started_at - interval '60 seconds' where run_id = %s",
            (run_id,),
        )
        b = start_worker(FROZEN, "--tick-interval", "0.2")
        b.wait_running()
        run = wait_run(pgflow_conn, run_id, timeout=30)
        assert run["status"] == "completed"
        # Frozen for longer than the step timeout (3 s): on a wall clock, A's handlers
        # (2 s each) would all have timed out by the time A runs again.
        time.sleep(max(0.0, frozen_at + 5 - time.monotonic()))
    finally:
        a.signal(signal.SIGCONT)

    # A's handlers finish after the resume and their reports come back ignored.
    wait_for(
        lambda: (
            len([e for e in a.logs() if e.get("msg", "").startswith("report ignored")])
            == len(ITEMS)
        ),
        what="worker A's late reports",
    )
    ignored = [e for e in a.logs() if e.get("msg", "").startswith("report ignored")]
    assert {e["reason"] for e in ignored} == {"stale_attempt"}
    assert {e["outcome"] for e in ignored} == {"ignored"}
    assert {e["attempt"] for e in ignored} == {1}
    # Reported as completions, not as timeouts: the freeze does not count against the
    # handler timeout (a failure report would carry the error).
    assert not [e for e in ignored if "error" in e]
    assert not [e for e in a.logs() if e.get("msg") == "task failed"]

    tasks = step_tasks(pgflow_conn, run_id)
    assert [(t["status"], t["attempts_count"]) for t in tasks] == [("completed", 2)] * len(ITEMS)
    assert {t["output"]["pid"] for t in tasks} == {b.proc.pid}
    run = wait_run(pgflow_conn, run_id, timeout=5)
    assert run["status"] == "completed"
    assert [o["item"] for o in run["output"]["hold_and_sign"]] == ITEMS
    assert {o["pid"] for o in run["output"]["hold_and_sign"]} == {b.proc.pid}

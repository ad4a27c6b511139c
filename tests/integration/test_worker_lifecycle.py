"""Worker lifecycle: registration, SIGTERM drain, abandon after the grace, deprecation,
shape mismatch, option changes applied at start, startup without a database. (The worker's
own requeue_stalled_tasks calls: tests/integration/test_requeue_stalled_tasks_by_worker.py.)
"""

from __future__ import annotations

import signal
import socket
import time

from pgflow.worker import WorkerConfig
from tests.integration.worker_harness import (
    start_flow,
    step_tasks,
    wait_for,
    wait_run,
    worker_rows,
)


def _task_started(conn, run_id):
    return lambda: any(t["status"] == "started" for t in step_tasks(conn, run_id))


def test_registers_one_fresh_worker_row_per_flow_and_process(pgflow_conn, start_worker):
    first = start_worker("control:flow_a", "control:flow_b", "--function-name", "fn1")
    first.wait_running()
    second = start_worker("control:flow_a")
    second.wait_running()
    rows_a = worker_rows(pgflow_conn, "flow_a")
    rows_b = worker_rows(pgflow_conn, "flow_b")
    assert len(rows_a) == 2 and len(rows_b) == 1
    assert len({r["worker_id"] for r in rows_a + rows_b}) == 3
    assert {r["function_name"] for r in rows_a} == {"fn1", "pgflow-worker"}
    tracked = {
        r[0] for r in pgflow_conn.execute("select function_name from pgflow.worker_functions")
    }
    assert tracked == {"fn1", "pgflow-worker"}
    # NOTIFY enabled once per queue, with the worker's throttle
    throttles = dict(
        pgflow_conn.execute(
            "select queue_name, throttle_interval_ms from pgmq.notify_insert_throttle"
        ).fetchall()
    )
    default = WorkerConfig(dsn="").notify_throttle_ms
    assert throttles == {"flow_a": default, "flow_b": default}


def test_sigterm_drains_in_flight_task_then_marks_worker_stopped(pgflow_conn, start_worker):
    worker = start_worker("control:sleepy")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "sleepy", {"seconds": 2})
    wait_for(_task_started(pgflow_conn, run_id), what="task started")
    worker.signal(signal.SIGTERM)
    assert worker.wait(30) == 0
    run = wait_run(pgflow_conn, run_id, timeout=1)
    assert run["status"] == "completed"
    assert run["output"] == {"nap": {"slept": 2, "shutdown_seen": True}}
    (row,) = worker_rows(pgflow_conn, "sleepy")
    assert row["stopped_at"] is not None
    assert row["deprecated_at"] is not None
    # no new task was read after the signal
    second = start_flow(pgflow_conn, "sleepy", {"seconds": 0})
    time.sleep(0.5)
    assert step_tasks(pgflow_conn, second)[0]["status"] == "queued"


def test_tasks_still_running_after_the_grace_are_abandoned(pgflow_conn, start_worker):
    worker = start_worker("control:sleepy_sync", "--shutdown-grace", "0.5")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "sleepy_sync", {"seconds": 60})
    wait_for(_task_started(pgflow_conn, run_id), what="task started")
    started = time.monotonic()
    worker.signal(signal.SIGINT)
    assert worker.wait(20) == 0
    assert time.monotonic() - started < 15  # the sleeping handler thread did not hold it
    (task,) = step_tasks(pgflow_conn, run_id)
    assert task["status"] == "started"  # neither completed nor failed: left to be requeued
    assert task["attempts_count"] == 1
    assert worker_rows(pgflow_conn, "sleepy_sync")[0]["stopped_at"] is not None
    assert worker.has_log(
        "in-flight tasks abandoned; requeue_stalled_tasks requeues them once they are stalled"
    )


def test_deprecated_worker_stops_reading_and_exits(pgflow_conn, start_worker):
    worker = start_worker("control:flow_a", "--heartbeat-interval", "0.2")
    worker.wait_running()
    (row,) = worker_rows(pgflow_conn, "flow_a")
    pgflow_conn.execute("select pgflow.deprecate_worker(%s)", (row["worker_id"],))
    assert worker.wait(20) == 0
    assert worker.has_log("worker deprecated; it stops reading this flow")
    assert worker_rows(pgflow_conn, "flow_a")[0]["stopped_at"] is not None


def test_heartbeat_refreshes_the_row(pgflow_conn, start_worker):
    worker = start_worker("control:flow_a", "--heartbeat-interval", "0.2")
    worker.wait_running()
    (row,) = worker_rows(pgflow_conn, "flow_a")
    wait_for(
        lambda: (
            worker_rows(pgflow_conn, "flow_a")[0]["last_heartbeat_at"] > row["last_heartbeat_at"]
        ),
        what="a heartbeat",
    )


def test_shape_mismatch_exits_1_printing_the_differences(pgflow_conn, start_worker):
    first = start_worker("basic:chain")
    first.wait_running()
    run_id = start_flow(pgflow_conn, "chain", {"n": 1})
    wait_run(pgflow_conn, run_id)
    first.signal(signal.SIGTERM)
    assert first.wait() == 0

    other = start_worker("control:chain_v2")
    assert other.wait(20) == 1
    text = other.text()
    assert "Step count differs: 1 vs 3" in text
    assert "slug differs 'only' vs 'first'" in text
    assert "--allow-data-loss" in text
    assert pgflow_conn.execute("select count(*) from pgflow.runs").fetchone() == (1,)

    recompiled = start_worker("control:chain_v2", "--allow-data-loss")
    recompiled.wait_running()
    assert recompiled.has_log("flow recompiled: its old definition and runs were deleted")
    assert pgflow_conn.execute("select count(*) from pgflow.runs").fetchone() == (0,)
    run_id = start_flow(pgflow_conn, "chain", {})
    assert wait_run(pgflow_conn, run_id)["output"] == {"only": "v2"}


def test_changed_options_are_applied_at_start_and_logged_runs_kept(pgflow_conn, start_worker):
    first = start_worker("control:tuned")
    first.wait_running()
    first.signal(signal.SIGTERM)
    assert first.wait() == 0
    run_id = start_flow(pgflow_conn, "tuned", {})  # queued while no worker runs

    second = start_worker("control:tuned_v2")
    second.wait_running()
    assert second.has_log("flow verified")
    changes = {
        (e["step_slug"], e["option"], e["from"], e["to"])
        for e in second.logs()
        if e.get("msg") == "flow option changed"
    }
    assert changes == {
        (None, "max_attempts", 2, 5),
        (None, "base_delay", 5, 1),
        ("work", "timeout", 10, None),
        ("work", "start_delay", None, 1),
    }
    flow = pgflow_conn.execute(
        "select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows "
        "where flow_slug = 'tuned'"
    ).fetchone()
    step = pgflow_conn.execute(
        "select opt_timeout, opt_start_delay from pgflow.steps where flow_slug = 'tuned'"
    ).fetchone()
    assert (flow, step) == ((5, 1, 60), (None, 1))
    assert wait_run(pgflow_conn, run_id)["output"] == {"work": {"v": 2}}  # the run is kept


def test_startup_retries_while_the_database_is_unreachable(start_worker):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dsn = f"host=127.0.0.1 port={port} dbname=nowhere user=nobody connect_timeout=1"
    worker = start_worker("control:flow_a", dsn=dsn)
    wait_for(
        lambda: any("Connection refused" in e.get("msg", "") for e in worker.logs()),
        what="a logged connection error",
    )
    time.sleep(1.5)
    assert worker.proc.poll() is None  # still trying, not crash-looping out
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0

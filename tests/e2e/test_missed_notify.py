"""Notifications go missing; every task still starts within the fallback poll
bound, with LISTEN gone and behind PgBouncer in transaction mode (no LISTEN possible).

The listener's own loss and reconnection are in tests/integration/test_worker_connections.py
(test_listener_loss_is_detected_and_reconnected, test_notify_works_again_after_the_listener_
reconnects). Here NOTIFY is taken away for good (the insert trigger dropped after the
listener was killed), so only the fallback poll can start tasks.

Start latency is measured on the database clock: ``step_tasks.started_at - queued_at``.
The bound asserted is the poll interval plus a generous margin for a loaded machine.
"""

from __future__ import annotations

import time

import pytest

from tests.integration.worker_harness import start_flow, step_tasks, wait_for, wait_run

pytestmark = pytest.mark.e2e

QUICK = "tests.e2e.flows.faults:quick"
POLL_SECONDS = 1.0
#: poll interval + margin for a claim on a loaded CI machine (a 5 s poll, the symptom of a
#: worker that waits for NOTIFY and polls rarely, would exceed it)
BOUND_SECONDS = POLL_SECONDS + 3.0


def _start_spread(conn, count: int, over_seconds: float) -> list[str]:
    runs = []
    for n in range(count):
        runs.append(start_flow(conn, "quick", {"n": n}))
        time.sleep(over_seconds / count)
    return runs


def _start_latencies(conn, runs: list[str]) -> list[float]:
    rows = conn.execute(
        "select extract(epoch from started_at - queued_at)::float8 from pgflow.step_tasks "
        "where run_id = any(%s::uuid[])",
        (runs,),
    ).fetchall()
    assert len(rows) == len(runs)
    return [r[0] for r in rows]


def test_listener_killed_and_notify_lost_tasks_start_within_the_poll_bound(
    pgflow_conn, start_worker
):
    worker = start_worker(QUICK, "--poll-interval", str(POLL_SECONDS))
    worker.wait_running()
    terminated = pgflow_conn.execute(
        "select pg_terminate_backend(pid) from pg_stat_activity "
        "where application_name like 'pgflow-worker-listen:%'"
    ).fetchall()
    assert terminated == [(True,)]
    # From now on no notification is ever sent: only the fallback poll can start tasks.
    pgflow_conn.execute("select pgmq.disable_notify_insert('quick')")
    worker.wait_log("LISTEN connection lost; falling back to polling until it is back")

    runs = _start_spread(pgflow_conn, 20, over_seconds=10)
    for run_id in runs:
        assert wait_run(pgflow_conn, run_id, timeout=30)["status"] == "completed"
    latencies = _start_latencies(pgflow_conn, runs)
    assert max(latencies) <= BOUND_SECONDS, sorted(latencies)
    # the listener came back (and finds nothing to hear)
    wait_for(
        lambda: (
            sum(e.get("msg") == "listening for queue notifications" for e in worker.logs()) == 2
        ),
        what="the listener to reconnect",
    )


def test_behind_pgbouncer_transaction_mode_polling_meets_the_bound(
    pgflow_conn, pgbouncer_dsn, start_worker
):
    worker = start_worker(
        QUICK, "--no-listen", "--poll-interval", str(POLL_SECONDS), dsn=pgbouncer_dsn
    )
    worker.wait_running()
    runs = _start_spread(pgflow_conn, 20, over_seconds=10)
    for run_id in runs:
        assert wait_run(pgflow_conn, run_id, timeout=30)["status"] == "completed"
    latencies = _start_latencies(pgflow_conn, runs)
    assert max(latencies) <= BOUND_SECONDS, sorted(latencies)
    assert all(t["attempts_count"] == 1 for r in runs for t in step_tasks(pgflow_conn, r))
    assert [e for e in worker.logs() if e.get("level") in ("warning", "error")] == []


def test_busy_workers_behind_pgbouncer_send_no_broken_statements(
    pgflow_conn, pgbouncer_dsn, start_worker
):
    """Several busy workers share PgBouncer's server connections. With psycopg's automatic
    server-side prepares (the old default) a statement prepared on one server connection
    was missing on the next, or another statement ran under its name with our parameters;
    tasks were lost until requeue_stalled_tasks requeued them. Prepares are now off unless
    asked for."""
    workers = [
        start_worker(
            "tests.e2e.flows.faults:load",
            "--no-listen",
            "--poll-interval",
            "0.05",
            "--max-connections",
            "4",
            "--max-concurrency",
            "20",
            dsn=pgbouncer_dsn,
        )
        for _ in range(3)
    ]
    for worker in workers:
        worker.wait_running()
    runs = [start_flow(pgflow_conn, "load", list(range(30))) for _ in range(20)]
    for run_id in runs:
        run = wait_run(pgflow_conn, run_id, timeout=60)
        assert run["status"] == "completed"
        assert run["output"] == {"added": sum(range(1, 31))}
    attempts = pgflow_conn.execute(
        "select attempts_count, count(*) from pgflow.step_tasks group by 1"
    ).fetchall()
    assert attempts == [(1, 20 * 31)]
    problems = [e for w in workers for e in w.logs() if e.get("level") in ("warning", "error")]
    assert problems == []

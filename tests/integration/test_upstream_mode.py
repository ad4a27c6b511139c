"""`pgflow-worker` on a database that holds only upstream pgflow's SQL (not adopted): it
runs in upstream mode, with upstream's functions only (pgmq.read, start_tasks,
complete_task, fail_task, its own rows of pgflow.workers), says so in one log line, and
runs flows to completion. The database is upstream-shaped by
tests/integration/upstream_fixture.py.
"""

from __future__ import annotations

import signal

import psycopg

from pgflow.worker.modes import UPSTREAM_NOTICE
from tests.integration.upstream_fixture import install_ours, strip_to_upstream
from tests.integration.worker_harness import start_flow, wait_run


def upstream_database(dsn: str) -> str:
    """An upstream-shaped database without flows (the workers compile theirs)."""
    install_ours(dsn)
    strip_to_upstream(dsn, runnable=True)
    return dsn


def test_a_flow_runs_to_completion_in_upstream_mode(empty_db, start_worker):
    dsn = upstream_database(empty_db())
    worker = start_worker("basic:chain", "--no-listen", "--poll-interval", "0.2", dsn=dsn)
    worker.wait_running()

    with psycopg.connect(dsn, autocommit=True) as conn:
        run_id = start_flow(conn, "chain", {"n": 1})
        run = wait_run(conn, run_id)
        attempts = conn.execute(
            "select array_agg(attempts_count order by step_slug) from pgflow.step_tasks"
            " where run_id = %s",
            (run_id,),
        ).fetchone()[0]
        worker.signal(signal.SIGTERM)
        assert worker.wait() == 0
        rows = conn.execute(
            "select count(*), bool_and(deprecated_at is not null and stopped_at is not null)"
            " from pgflow.workers"
        ).fetchone()

    assert run["status"] == "completed"
    assert run["output"] == {"third": {"total": 21, "task_index": 0}}
    assert attempts == [1, 1, 1]
    assert worker.has_log(UPSTREAM_NOTICE)
    assert worker.has_log("flow compiled")  # by upstream's ensure_flow_compiled
    assert rows == (1, True)  # registered, deprecated and stopped through the table itself
    assert not worker.has_log("listening for queue notifications")


def test_failures_are_retried_through_upstream_fail_task_with_the_right_attempt(
    empty_db, start_worker
):
    dsn = upstream_database(empty_db())
    worker = start_worker("failures:retries", "--no-listen", "--poll-interval", "0.2", dsn=dsn)
    worker.wait_running()

    with psycopg.connect(dsn, autocommit=True) as conn:
        run = wait_run(conn, start_flow(conn, "retries", {}), timeout=60)

    assert run["status"] == "completed"
    assert run["output"]["flaky"]["attempt"] == 3  # ctx.attempt counted as in pgflow-py mode

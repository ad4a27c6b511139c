"""The worker runs the schema check at start and refuses an incompatible database."""

from __future__ import annotations


def test_worker_refuses_to_start_on_a_changed_function_signature(pgflow_conn, start_worker):
    pgflow_conn.execute(
        "alter function pgflow.complete_task(uuid, text, int, jsonb, int) "
        "rename to complete_task_old"
    )

    worker = start_worker("basic:chain")

    assert worker.wait(timeout=30) != 0
    text = worker.text()
    assert "not compatible" in text
    assert "complete_task" in text
    assert not worker.has_log("worker running")


def test_worker_refuses_an_old_pgmq(pgflow_conn, start_worker):
    pgflow_conn.execute("update pg_extension set extversion = '1.4.5' where extname = 'pgmq'")

    worker = start_worker("basic:chain")

    assert worker.wait(timeout=30) != 0
    assert "pgmq" in worker.text()
    assert not worker.has_log("worker running")

"""Handler failures through a real worker: retries on the database clock, exhaustion in
each when_exhausted mode, error texts, non-JSON outputs, timeouts.
"""

from __future__ import annotations

from typing import Any

from tests.integration.worker_harness import (
    start_flow,
    step_states,
    step_tasks,
    wait_for,
    wait_run,
)


def test_retries_wait_for_the_db_backoff_and_count_attempts(pgflow_conn, start_worker):
    worker = start_worker("failures:retries")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "retries", {})

    # After the first failure the SQL requeued the task and pushed the message's vt to
    # DB now + base_delay * 2^1 = 2 s: the worker computed nothing.
    def requeued():
        row = pgflow_conn.execute(
            "select t.status, t.attempts_count, t.error_message, "
            "extract(epoch from q.vt - clock_timestamp()) "
            "from pgflow.step_tasks t join pgmq.q_retries q on q.msg_id = t.message_id "
            "where t.run_id = %s",
            (run_id,),
        ).fetchone()
        return row if row and row[0] == "queued" and row[1] == 1 else None

    _, _, error, vt_in = wait_for(requeued, what="first retry")
    assert error == "RuntimeError: attempt 1 failed"
    assert 0 < float(vt_in) <= 2.0

    run = wait_run(pgflow_conn, run_id)
    assert run["status"] == "completed"
    # third attempt succeeded; the message was read exactly once per attempt (never
    # claimed before the DB made it visible again)
    assert run["output"] == {"flaky": {"attempt": 3, "read_ct": 3}}
    (task,) = step_tasks(pgflow_conn, run_id)
    assert task["attempts_count"] == 3
    archived = pgflow_conn.execute(
        "select read_ct from pgmq.a_retries where msg_id = %s", (task["message_id"],)
    ).fetchone()
    assert archived == (3,)


def test_exhaustion_modes(pgflow_conn, start_worker):
    worker = start_worker(
        "failures:exhaust_fail", "failures:exhaust_skip", "failures:exhaust_cascade"
    )
    worker.wait_running()
    failed = start_flow(pgflow_conn, "exhaust_fail", {})
    skipped = start_flow(pgflow_conn, "exhaust_skip", {})
    cascaded = start_flow(pgflow_conn, "exhaust_cascade", {})

    run = wait_run(pgflow_conn, failed)
    assert run["status"] == "failed"
    states = step_states(pgflow_conn, failed)
    assert states["boom"]["status"] == "failed"
    assert states["boom"]["error_message"] == "ValueError: boom"
    assert states["after"]["status"] == "cancelled"  # a failed run leaves nothing unfinished

    run = wait_run(pgflow_conn, skipped)
    assert run["status"] == "completed"
    assert run["output"] == {"after_skip": {"input": {}}}  # the skipped dependency is absent
    states = step_states(pgflow_conn, skipped)
    assert states["boom_skip"]["status"] == "skipped"
    assert states["boom_skip"]["skip_reason"] == "handler_failed"

    run = wait_run(pgflow_conn, cascaded)
    assert run["status"] == "completed"
    assert run["output"] == {"independent": "ran"}
    states = step_states(pgflow_conn, cascaded)
    assert states["boom_cascade"]["skip_reason"] == "handler_failed"
    assert states["after_cascade"]["status"] == "skipped"
    assert states["after_cascade"]["skip_reason"] == "dependency_skipped"


def test_errors_and_bad_outputs_fail_the_task_not_the_worker(pgflow_conn, start_worker):
    worker = start_worker("failures:errors")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "errors", {})
    run = wait_run(pgflow_conn, run_id)
    assert run["status"] == "completed"
    assert run["output"] == {"fine": "ok"}
    states = step_states(pgflow_conn, run_id)
    assert states["raises"]["error_message"] == "ValueError: nope"
    assert states["returns_set"]["error_message"].startswith(
        "TypeError: handler output is not JSON-serialisable (set): "
    )
    assert states["returns_nan"]["error_message"].startswith(
        "TypeError: handler output is not JSON-serialisable (float): "
    )
    # jsonb refuses \u0000: complete_task raised, so the worker failed the task instead
    assert states["returns_nul"]["error_message"].startswith("UntranslatableCharacter: ")
    assert all(s["status"] == "skipped" for n, s in states.items() if n != "fine")

    # the handler's traceback is in the worker log, naming the line that raised (each line
    # is written once its report committed, so the last may come after the run completed)
    def failures_logged() -> dict[str, Any]:
        failed = {e["step_slug"]: e for e in worker.logs() if e.get("msg") == "task failed"}
        return failed if len(failed) == len(states) - 1 else {}

    failed = wait_for(failures_logged, what="a 'task failed' line per failed step")
    assert "Traceback" in failed["raises"]["exc"]
    assert 'raise ValueError("nope")' in failed["raises"]["exc"]
    assert "exc" not in failed["returns_nul"]  # refused by the database, not the handler
    # the worker is still serving
    again = start_flow(pgflow_conn, "errors", {})
    assert wait_run(pgflow_conn, again)["status"] == "completed"


def test_handler_timeout_fails_async_and_sync_handlers(pgflow_conn, start_worker):
    worker = start_worker("failures:timeouts")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "timeouts", {})
    run = wait_run(pgflow_conn, run_id, timeout=30)
    assert run["status"] == "completed"
    states = step_states(pgflow_conn, run_id)
    for slug in ("slow_async", "slow_sync"):
        assert states[slug]["status"] == "skipped"
        assert (
            states[slug]["error_message"]
            == "TimeoutError: handler exceeded the step timeout of 3 s"
        )
    assert worker.has_log("sync handler still running after its timeout; its thread is abandoned")

"""The approval flow of README "Waiting for signals and time" (examples/approval.py) end to
end with a real worker process: a step waits without a task or a worker, a signal sent with
``psql`` releases it and its dependent gets the payload, a handler with ``wait_for`` reads
``ctx.signal``, a durable timer completes on the worker's tick, and a wait whose deadline
passes is fired by the tick (``on_timeout="continue"``: the handler runs with
``timed_out``).

SQL-level tests of the same paths: sql_tests/send_signal, sql_tests/tick.
"""

from __future__ import annotations

import shutil
import subprocess

import psycopg
import pytest

from tests.integration.worker_harness import (
    run_row,
    start_flow,
    step_states,
    step_tasks,
    wait_for,
    wait_run,
)

pytestmark = pytest.mark.e2e

FLOW = "tests.e2e.flows.approval:flow"
EXPENSE = {"employee": "ada", "amount": 120}


def send_with_psql(dsn: str, run_id: str, name: str, payload: str) -> str:
    """Send a signal the way any language can: one SELECT, here through psql."""
    psql = shutil.which("psql")
    assert psql, "psql is on PATH in the test environment"
    out = subprocess.run(
        [
            psql, dsn, "-X", "-At", "-v", "ON_ERROR_STOP=1",
            "-c", f"select status from pgflow.send_signal('{run_id}', '{name}', '{payload}')",
        ],
        check=True, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    return out.stdout.strip()


def waiting(conn: psycopg.Connection, run_id: str, step: str) -> bool:
    return step_states(conn, run_id)[step]["status"] == "waiting"


def test_an_approval_waits_for_signals_and_time_and_completes(
    pgflow_conn, pgflow_dsn, start_worker
):
    worker = start_worker(FLOW, "--tick-interval", "0.3")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "expense_approval", EXPENSE)

    # The wait holds no task and no message while the run waits for a person.
    wait_for(lambda: waiting(pgflow_conn, run_id, "approved"), what="approved to wait")
    assert [t for t in step_tasks(pgflow_conn, run_id) if t["step_slug"] == "approved"] == []
    assert run_row(pgflow_conn, run_id)["status"] == "started"

    assert send_with_psql(pgflow_dsn, run_id, "approved", '{"by": "carol"}') == "taken"
    # book waits for the payment callback: a signal in the wrong currency is not taken.
    wait_for(lambda: waiting(pgflow_conn, run_id, "book"), what="book to wait")
    assert send_with_psql(pgflow_dsn, run_id, "paid", '{"currency": "USD"}') == "pending"
    assert waiting(pgflow_conn, run_id, "book")
    assert send_with_psql(
        pgflow_dsn, run_id, "paid", '{"currency": "EUR", "reference": "P-7"}'
    ) == ("taken")

    row = wait_run(pgflow_conn, run_id)
    assert row["status"] == "completed", row
    assert row["output"] == {"notify": "120 approved by carol: paid (P-7)"}
    states = step_states(pgflow_conn, run_id)
    assert states["approved"]["output"] == {"by": "carol"}
    assert states["book"]["output"] == {
        "amount": 120, "approved_by": "carol", "paid": True, "reference": "P-7",
    }  # fmt: skip
    assert set(states["cool_off"]["output"]) == {"due_at", "fired_at"}
    # the USD callback is still there, pending, never dropped
    (pending,) = pgflow_conn.execute(
        "select count(*) from pgflow.signals where run_id = %s and status = 'pending'", (run_id,)
    ).fetchone()
    assert pending == 1


def test_a_wait_past_its_deadline_is_fired_by_the_worker_tick(
    pgflow_conn, pgflow_dsn, start_worker
):
    worker = start_worker(FLOW, "--tick-interval", "0.3")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "expense_approval", EXPENSE)
    wait_for(lambda: waiting(pgflow_conn, run_id, "approved"), what="approved to wait")
    assert send_with_psql(pgflow_dsn, run_id, "approved", '{"by": "dan"}') == "taken"
    wait_for(lambda: waiting(pgflow_conn, run_id, "book"), what="book to wait")

    # A day passes (the deadline is moved, the database clock is not): the worker's tick
    # fires the wait and book runs without a signal.
    pgflow_conn.execute(
        "update pgflow.wait_states set deadline = now() - interval '1 second'"
        " where run_id = %s and step_slug = 'book'",
        (run_id,),
    )
    row = wait_run(pgflow_conn, run_id)
    assert row["status"] == "completed", row
    assert row["output"] == {"notify": "120 approved by dan: booked, not paid yet"}
    (outcome,) = pgflow_conn.execute(
        "select outcome from pgflow.wait_states where run_id = %s and step_slug = 'book'", (run_id,)
    ).fetchone()
    assert outcome == "timed_out"

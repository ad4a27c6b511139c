"""ctx.signal through a real worker process: a handler that runs after a signal wait
(``@flow.step(wait_for=...)``) receives the signal its step took (name, payload, when the
database received it), or ``timed_out`` after its wait timed out with on_timeout continue,
fired by the worker's own tick (``--tick-interval``). Deadlines are moved into the past
with an UPDATE: no sleeps.

Without a database: tests/unit/test_context_signal.py; one tick in-process:
tests/integration/test_worker_tick.py.
"""

from __future__ import annotations

from datetime import datetime

from pgflow import Client
from tests.integration.failing_runs import step_status
from tests.integration.wait_flows import move_deadline_past
from tests.integration.worker_harness import start_flow, wait_for, wait_run

FLOWS = ("signals:approval", "signals:async_approval")
FAST_TICK = ("--tick-interval", "0.2", "--poll-interval", "0.2")


def wait_until_waiting(conn, run_id, step_slug):
    wait_for(
        lambda: step_status(conn, run_id, step_slug) == "waiting",
        what=f"step {step_slug} of run {run_id} to wait",
    )


def step_output(conn, run_id, step_slug):
    return conn.execute(
        "select output from pgflow.step_states where run_id = %s and step_slug = %s",
        (run_id, step_slug),
    ).fetchone()[0]


def received_at(conn, run_id):
    (moment,) = conn.execute(
        "select received_at from pgflow.signals where run_id = %s", (run_id,)
    ).fetchone()
    return moment


def test_the_handler_receives_the_signal_its_step_took(pgflow_dsn, pgflow_conn, start_worker):
    worker = start_worker(*FLOWS, *FAST_TICK)
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "approval", {"amount": 12})
    other = start_flow(pgflow_conn, "async_approval", {"order": 7})
    wait_until_waiting(pgflow_conn, run_id, "approve")
    wait_until_waiting(pgflow_conn, other, "decide")

    with Client(pgflow_dsn) as client:
        client.send_signal(run_id, "approved", {"by": "alice"})
        client.send_signal(other, "approved", {"ok": False})  # no match: stays pending
        client.send_signal(other, "approved", {"ok": True, "by": "bob"})

    assert wait_run(pgflow_conn, run_id)["status"] == "completed"
    assert wait_run(pgflow_conn, other)["status"] == "completed"
    told = step_output(pgflow_conn, run_id, "approve")
    assert told == {
        "name": "approved",
        "payload": {"by": "alice"},
        "received_at": told["received_at"],
        "timed_out": False,
        "input": {"prepare": {"amount": 12}},
    }
    assert datetime.fromisoformat(told["received_at"]) == received_at(pgflow_conn, run_id)
    told_async = step_output(pgflow_conn, other, "decide")
    assert (told_async["payload"], told_async["timed_out"]) == ({"ok": True, "by": "bob"}, False)
    assert told_async["input"] == {"order": 7}


def test_after_a_timeout_with_continue_the_handler_learns_it_timed_out(pgflow_conn, start_worker):
    worker = start_worker(*FLOWS, *FAST_TICK)
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "approval", {"amount": 3})
    wait_until_waiting(pgflow_conn, run_id, "approve")

    move_deadline_past(pgflow_conn, run_id, "approve")  # the worker's next tick fires it

    assert wait_run(pgflow_conn, run_id)["status"] == "completed"
    assert step_output(pgflow_conn, run_id, "approve") == {
        "name": "approved",
        "payload": None,
        "received_at": None,
        "timed_out": True,
        "input": {"prepare": {"amount": 3}},
    }
    assert worker.has_log("waits fired")

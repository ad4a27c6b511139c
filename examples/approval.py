"""An expense approval that waits for people and for a payment provider.

From README "Waiting for signals and time". A run submits an expense, then waits, holding
no worker, for a person to approve it: the signal ``approved``, sent from any language
(``select pgflow.send_signal(run_id, 'approved', '{"by": "carol"}')``). Then it waits for
the payment provider's callback in euros (``paid``, at most a day; without it the booking
goes on unpaid), cools off for a second (a durable timer) and notifies the employee.

Run a worker for it with ``pgflow-worker examples.approval:flow``.
"""

from __future__ import annotations

from typing import Any

from pgflow import Context
from pgflow.dsl import Flow

flow = Flow("expense_approval")


@flow.step()
def submit(input: dict[str, Any]) -> dict[str, Any]:
    """Record the expense (the run input: ``{"employee": ..., "amount": ...}``)."""
    return {"employee": input["employee"], "amount": input["amount"]}


# No handler: waits for the signal "approved" (three days at most, then the run fails); the
# step's output is the signal's payload.
flow.wait("approved", depends_on=["submit"], timeout=3 * 86400, on_timeout="fail")


@flow.step(
    depends_on=["submit", "approved"],
    wait_for="paid",
    signal_match={"currency": "EUR"},
    wait_timeout=86400,
    on_timeout="continue",
)
def book(input: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Book the expense once the payment callback came (or a day passed without it)."""
    signal = ctx.signal
    assert signal is not None  # a step with wait_for always gets one
    return {
        "amount": input["submit"]["amount"],
        "approved_by": input["approved"]["by"],
        "paid": not signal.timed_out,
        "reference": None if signal.timed_out else signal.payload["reference"],
    }


flow.sleep("cool_off", seconds=1, depends_on=["book"])


@flow.step(depends_on=["book", "cool_off"])
def notify(input: dict[str, Any]) -> str:
    """Tell the employee what happened."""
    booking = input["book"]
    state = f"paid ({booking['reference']})" if booking["paid"] else "booked, not paid yet"
    return f"{booking['amount']} approved by {booking['approved_by']}: {state}"

"""Flows whose steps wait for a signal before their handler runs, for the worker's
``ctx.signal`` tests: each handler returns what it was told (``ctx.signal``) as output."""

from __future__ import annotations

from typing import Any

from pgflow.context import Context
from pgflow.dsl import Flow


def told(input: Any, ctx: Context) -> dict[str, Any] | None:
    """What a handler learns of its signal, as JSON (None: no ctx.signal)."""
    signal = ctx.signal
    if signal is None:
        return None
    return {
        "name": signal.name,
        "payload": signal.payload,
        "received_at": None if signal.received_at is None else signal.received_at.isoformat(),
        "timed_out": signal.timed_out,
        "input": input,
    }


# ---------------------------------------------------------------- a sync handler
approval = Flow("approval", timeout=10)


@approval.step()
def prepare(input):
    return {"amount": input["amount"]}


@approval.step(
    depends_on=["prepare"], wait_for="approved", wait_timeout=3600, on_timeout="continue"
)
def approve(input, ctx):
    return told(input, ctx)


# ---------------------------------------------------------------- an async handler
async_approval = Flow("async_approval", timeout=10)


@async_approval.step(wait_for="approved", signal_match={"ok": True})
async def decide(input, ctx):
    return told(input, ctx)

"""ctx.signal without a database: the Signal record, how a get_step_signal row becomes one,
which steps ask for it (only those whose handler runs after a signal wait: a flow without
waits sends no extra query), and that the executor hands it to the handler.

Against a real database and worker: tests/integration/test_worker_signals.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from pgflow.context import Context, KnownFlowInput, Signal
from pgflow.dsl import Flow
from pgflow.worker.step_signal import signal_from_row, waits_for_signal
from tests.unit.executor_fakes import RUN_ID, FakePool, claimed, make_executor, only_report

RECEIVED = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def make_flow() -> Flow:
    flow = Flow("signal_unit_flow", timeout=10)

    @flow.step()
    def root(input):
        return {"ok": True}

    @flow.step(depends_on=["root"], wait_for="approved", wait_timeout=60, on_timeout="continue")
    def approve(input, ctx):
        signal = ctx.signal
        if signal is None:
            return None
        return {
            "name": signal.name,
            "payload": signal.payload,
            "received_at": None if signal.received_at is None else signal.received_at.isoformat(),
            "timed_out": signal.timed_out,
        }

    @flow.step(depends_on=["root"])
    def plain(input, ctx):
        return {"signal": ctx.signal}

    flow.wait("approval", "approved", depends_on=["root"])
    flow.sleep("cool_off", seconds=60, depends_on=["root"])
    return flow


def context(**overrides: Any) -> Context:
    values: dict[str, Any] = {
        "flow_slug": "f",
        "run_id": RUN_ID,
        "step_slug": "s",
        "task_index": 0,
        "attempt": 1,
        "worker_id": "w",
        "raw_message": {},
        "step_task": {},
        "shutdown": threading.Event(),
        "timeout_seconds": 10,
        "flow_input_source": KnownFlowInput({}),
    }
    return Context(**{**values, **overrides})


def test_a_context_has_no_signal_unless_given_one():
    assert context().signal is None
    signal = Signal(name="approved", payload={"by": "alice"}, received_at=RECEIVED, timed_out=False)
    assert context(signal=signal).signal == signal


def test_signal_is_frozen():
    signal = Signal(name="approved", payload=None, received_at=None, timed_out=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        signal.payload = 1  # type: ignore[misc]


def test_a_get_step_signal_row_becomes_a_signal():
    taken = signal_from_row((7, "approved", {"by": "alice"}, RECEIVED, False))
    timed_out = signal_from_row((None, "approved", None, None, True))

    assert taken == Signal("approved", {"by": "alice"}, RECEIVED, False)
    assert timed_out == Signal("approved", None, None, True)
    assert signal_from_row(None) is None


def test_only_steps_whose_handler_runs_after_a_signal_wait_ask_for_it():
    flow = make_flow()
    asks = {step.slug: waits_for_signal(step) for step in flow.steps}
    assert asks == {
        "root": False,
        "approve": True,
        "plain": False,
        "approval": False,  # flow.wait: no handler, the database completes it
        "cool_off": False,  # flow.sleep: a timer
    }


def run(task: Any, step_signals: Any) -> tuple[FakePool, Any]:
    pool = FakePool()

    async def main() -> None:
        await make_executor(pool, step_signals=step_signals).run(task)

    asyncio.run(main())
    _, report = only_report(pool)
    return pool, json.loads(report["payloads"])


def test_the_handler_gets_the_signal_its_step_took():
    asked: list[tuple[str, str]] = []

    async def step_signals(run_id: str, step_slug: str) -> Signal:
        asked.append((run_id, step_slug))
        return Signal("approved", {"by": "alice"}, RECEIVED, False)

    _, output = run(claimed(make_flow(), "approve", {"root": {"ok": True}}), step_signals)

    assert asked == [(RUN_ID, "approve")]
    assert output == {
        "name": "approved",
        "payload": {"by": "alice"},
        "received_at": RECEIVED.isoformat(),
        "timed_out": False,
    }


def test_the_handler_learns_its_wait_timed_out():
    async def step_signals(run_id: str, step_slug: str) -> Signal:
        return Signal("approved", None, None, True)

    _, output = run(claimed(make_flow(), "approve", {"root": {"ok": True}}), step_signals)

    assert output == {"name": "approved", "payload": None, "received_at": None, "timed_out": True}


def test_a_step_without_signal_wait_sends_no_query_and_gets_none():
    async def step_signals(run_id: str, step_slug: str) -> Signal:
        raise AssertionError("asked for the signal of a step that does not wait for one")

    pool, output = run(claimed(make_flow(), "plain", {"root": {"ok": True}}), step_signals)

    assert output == {"signal": None}
    assert len(pool.sent) == 1  # the report only


def test_without_a_signal_reader_the_signal_stays_none():
    _, output = run(claimed(make_flow(), "approve", {"root": {"ok": True}}), None)
    assert output is None

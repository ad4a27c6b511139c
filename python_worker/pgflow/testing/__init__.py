"""Testing flows: run a run inline against a test database, and move the engine's clock.

A pytest plugin (:mod:`pgflow.testing.plugin`, loaded automatically once pgflow is installed
with the ``testing`` extra) gives each test a fresh database with pgflow installed and the
fixtures ``pgflow_dsn``, ``pgflow_db``, ``pgflow_client``, ``pgflow_clock`` and ``run_flow``.

- :func:`run_flow` starts a run and drives it to its end through the real SQL (the claim
  and report calls a worker makes), running the handlers in the test process, with
  per-step ``overrides``; it moves the engine's clock over delays, backoffs, timeouts and
  timers. It returns a :class:`FlowRun` (status, output, every step's status, output,
  attempts, error and times, the waits and the audit trail).
- :class:`TestClock` moves the engine's time forward (``pgflow.advance_clock``): every time
  the engine reads comes from ``pgflow._now()``, the database clock plus that offset.

Outside pytest: :class:`~pgflow.testing.server.TestServer` makes databases, and
:func:`run_flow` / :func:`continue_run` take a ``dsn``.
"""

from __future__ import annotations

import uuid
from typing import Any, Unpack

from pgflow.dsl import Flow
from pgflow.errors import RunStalled
from pgflow.testing.clock import TestClock
from pgflow.testing.results import FlowRun, StepResult, TaskResult
from pgflow.testing.runner import (
    RunOptions,
    continue_run,
    continue_run_async,
    prepare_flow,
    run_flow,
    run_flow_async,
)
from pgflow.worker.tick import TickResult

__all__ = [
    "FlowRun",
    "FlowRunner",
    "RunOptions",
    "RunStalled",
    "StepResult",
    "TaskResult",
    "TestClock",
    "TickResult",
    "continue_run",
    "continue_run_async",
    "prepare_flow",
    "run_flow",
    "run_flow_async",
]


class FlowRunner:
    """:func:`run_flow` and :func:`continue_run` bound to one database (the ``run_flow`` fixture).

    Call it as :func:`run_flow`; ``continue_run``, ``prepare`` and the async forms
    ``run_async`` / ``continue_run_async`` (for async tests: their handlers run on the
    test's loop) are methods.

    Args:
        dsn: the database (``pgflow_dsn``).
    """

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def __call__(
        self,
        flow: Flow,
        input: Any,
        *,
        run_id: str | uuid.UUID | None = None,
        **options: Unpack[RunOptions],
    ) -> FlowRun:
        """Start a run of ``flow`` and drive it to its end (:func:`run_flow`)."""
        return run_flow(flow, input, dsn=self.dsn, run_id=run_id, **options)

    def continue_run(
        self, flow: Flow, run_id: str | uuid.UUID, **options: Unpack[RunOptions]
    ) -> FlowRun:
        """Drive an existing run on to its end (:func:`continue_run`)."""
        return continue_run(flow, run_id, dsn=self.dsn, **options)

    def prepare(self, flow: Flow) -> None:
        """Create ``flow`` in the database, or verify it (:func:`prepare_flow`)."""
        prepare_flow(flow, dsn=self.dsn)

    async def run_async(
        self,
        flow: Flow,
        input: Any,
        *,
        run_id: str | uuid.UUID | None = None,
        **options: Unpack[RunOptions],
    ) -> FlowRun:
        """:func:`run_flow_async` on this database (awaited on the running loop)."""
        return await run_flow_async(flow, input, dsn=self.dsn, run_id=run_id, **options)

    async def continue_run_async(
        self, flow: Flow, run_id: str | uuid.UUID, **options: Unpack[RunOptions]
    ) -> FlowRun:
        """:func:`continue_run_async` on this database (awaited on the running loop)."""
        return await continue_run_async(flow, run_id, dsn=self.dsn, **options)

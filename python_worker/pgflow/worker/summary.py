"""The worker's periodic summary log line: what it did since the previous one.

Per-task lines are DEBUG; at INFO a worker says every ``log_summary_interval_seconds``
(``--log-summary-interval``, 60 s by default, 0 = never) what it did, in one line such
as (wrapped here)::

    last 60 s: 1,204 tasks completed, 3 failed (2 will be retried),
    0 requeued by the sweep, 4 in flight

with the same numbers as fields (``interval_s``, ``started``, ``completed``, ``failed``,
``retried``, ``ignored``, ``requeued``, ``in_flight``). An idle worker does not repeat
itself: an interval in which nothing started, ended or was requeued, with nothing in
flight, is logged only when the one before it was not idle (the line that says the work
stopped). The numbers are this process's (:class:`~pgflow.worker.metrics.Totals`); the
requeues are those its own ``pgflow.tick()`` calls made, for any flow.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

from pgflow.worker.log import fields
from pgflow.worker.metrics import Totals, WorkerMetrics

logger = logging.getLogger("pgflow.worker")


def summary_text(seconds: float, delta: Totals, in_flight: int) -> str:
    """The summary sentence of one interval.

    Args:
        seconds: the interval's length.
        delta: what happened in it (``in_flight`` of it unused).
        in_flight: tasks in flight at its end.

    Returns:
        e.g. ``"last 60 s: 1,204 tasks completed, 3 failed (2 will be retried), 0 requeued
        by the sweep, 4 in flight"`` (plus ``", 2 reports ignored"`` when some were).
    """
    shown = f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.1f}".removesuffix(".0")
    text = (
        f"last {shown} s: {delta.completed:,} tasks completed, {delta.failed:,} failed "
        f"({delta.retried:,} will be retried), {delta.requeued:,} requeued by the sweep, "
        f"{in_flight:,} in flight"
    )
    if delta.ignored:
        text += f", {delta.ignored:,} reports ignored"
    return text


class ActivitySummary:
    """Logs the summary line of a worker's :class:`WorkerMetrics` every interval.

    Args:
        metrics: the worker's metrics (their running totals are read).
        interval_seconds: seconds between two lines (> 0).

    Raises:
        ValueError: ``interval_seconds`` is not positive.
    """

    def __init__(self, metrics: WorkerMetrics, interval_seconds: float) -> None:
        if interval_seconds <= 0:
            raise ValueError(f"interval_seconds must be positive, got {interval_seconds}")
        self._metrics = metrics
        self._interval_seconds = interval_seconds
        self._previous = dataclasses.replace(metrics.totals)
        self._previous_at: float | None = None
        self._previous_idle = False

    async def run(self) -> None:
        """Log a line every interval until cancelled."""
        loop = asyncio.get_running_loop()
        self._previous_at = loop.time()
        while True:
            await asyncio.sleep(self._interval_seconds)
            self.log_interval(loop.time())

    def log_interval(self, now: float) -> dict[str, Any] | None:
        """Close the interval ending at ``now`` (loop seconds) and log its line.

        Returns:
            The fields logged, or None when the interval was idle after an idle one.
        """
        current = dataclasses.replace(self._metrics.totals)
        previous, self._previous = self._previous, current
        started_at = self._previous_at if self._previous_at is not None else now
        self._previous_at = now
        delta = Totals(
            **{
                f.name: getattr(current, f.name) - getattr(previous, f.name)
                for f in dataclasses.fields(Totals)
            }
        )
        idle = (
            not (delta.started or delta.completed or delta.failed or delta.ignored)
            and not delta.requeued
            and not current.in_flight
        )
        repeat = idle and self._previous_idle
        self._previous_idle = idle
        if repeat:
            return None
        seconds = now - started_at
        values = {
            "interval_s": round(seconds, 1),
            "started": delta.started,
            "completed": delta.completed,
            "failed": delta.failed,
            "retried": delta.retried,
            "ignored": delta.ignored,
            "requeued": delta.requeued,
            "in_flight": current.in_flight,
        }
        logger.info(summary_text(seconds, delta, current.in_flight), extra=fields(**values))
        return values

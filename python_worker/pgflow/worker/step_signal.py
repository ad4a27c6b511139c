"""The signal a waiting step took, read for its handler's ``ctx.signal``.

A step defined with ``@flow.step(wait_for=...)`` waits for a signal, then its handler's
task is queued. Before that handler runs, the worker asks ``pgflow.get_step_signal`` (one
query per task of such a step; steps that do not wait for a signal with a handler never
ask) and hands the answer to the handler as a :class:`~pgflow.context.Signal`.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.context import Signal
from pgflow.dsl import Step
from pgflow.worker import queries
from pgflow.worker.config import Backoff


def waits_for_signal(step: Step) -> bool:
    """True when the step's handler runs after a signal wait (so it gets ``ctx.signal``).

    False for steps that do not wait, for ``flow.wait`` steps (no handler: the database
    completes them with the payload) and for timers (``flow.sleep``).
    """
    wait = step.wait
    return wait is not None and wait.kind == "signal" and wait.runs_handler


def signal_from_row(row: tuple[object, ...] | None) -> Signal | None:
    """Build the :class:`Signal` from a ``pgflow.get_step_signal`` row.

    Args:
        row: ``(signal_id, signal_name, payload, received_at, timed_out)``, or None when
            the function returned no row (the step's wait has not ended with a signal or
            a timeout).

    Returns:
        The signal (``timed_out`` True, payload and received_at None after a timeout), or
        None for no row.
    """
    if row is None:
        return None
    _signal_id, name, payload, received_at, timed_out = row
    return Signal(
        name=str(name),
        payload=payload,
        received_at=received_at if isinstance(received_at, datetime) else None,
        timed_out=bool(timed_out),
    )


class StepSignalReader:
    """Read the signal of a step's wait through the worker's pool.

    Args:
        pool: the worker's connection pool.
        reconnect_max_seconds: cap of the backoff between attempts while the database is
            unreachable (the caller bounds the whole read by the task's timeout).
    """

    def __init__(self, pool: AsyncConnectionPool, reconnect_max_seconds: float = 15.0) -> None:
        self._pool = pool
        self._reconnect_max_seconds = reconnect_max_seconds

    async def get(self, run_id: str, step_slug: str) -> Signal | None:
        """Return the signal step ``step_slug`` of run ``run_id`` took (or its timeout).

        Retries while the database is unreachable (connection errors, pool timeouts).

        Returns:
            The :class:`Signal`, or None when the step's wait has not ended with a signal
            or a timeout.

        Raises:
            psycopg.Error: any other database error (e.g. the role may not call
                ``pgflow.get_step_signal``); the task then fails with it.
        """
        backoff = Backoff(self._reconnect_max_seconds)
        while True:
            try:
                async with self._pool.connection() as conn:
                    cur = await conn.execute(
                        queries.GET_STEP_SIGNAL, {"run_id": run_id, "step_slug": step_slug}
                    )
                    return signal_from_row(await cur.fetchone())
            except (psycopg.OperationalError, PoolTimeout):
                await asyncio.sleep(backoff.next_delay())

"""Cancelled tasks: telling their handlers, and discarding their results quietly.

A task is cancelled in SQL, never by the worker: its run was cancelled
(``pgflow.cancel_run``) or failed, or its step was skipped or completed by hand. SQL
cannot reach a handler that runs in a worker, so the worker asks: at every heartbeat, while
tasks run, one call of ``pgflow.cancelled_tasks`` with the keys of the running tasks
(:class:`CancellationCheck`). For each cancelled one, :meth:`TaskCancellation.cancel` sets
the handler's ``ctx.cancelled`` and, if it is an ``async def`` handler still running,
cancels it (:class:`asyncio.CancelledError` inside the handler; nothing is reported: SQL
already closed the task). A sync handler cannot be stopped: it runs on in its thread, and
its report, when it returns, comes back ignored (reason ``run_cancelled``,
``task_cancelled`` or ``run_failed``). Either way the worker logs ``result discarded: run
cancelled`` (``run failed``, ``task cancelled``) once per task, at INFO: it is no error.

Upstream mode has no ``pgflow.cancelled_tasks``: the check is off there.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker import queries
from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields
from pgflow.worker.outage import is_connection_error

if TYPE_CHECKING:
    from pgflow.worker.claimed_task import ClaimedTask

logger = logging.getLogger("pgflow.worker")

#: Report reasons (``complete_tasks`` / ``fail_tasks``) that mean "the task was cancelled",
#: with the words of the log line.
CANCELLED_REASONS: Mapping[str, str] = {
    "run_cancelled": "run cancelled",
    "run_failed": "run failed",
    "run_expired": "run expired",
    "task_cancelled": "task cancelled",
}


def reason_of_run_status(run_status: str | None) -> str:
    """Return the report reason matching a cancelled task's run status.

    Args:
        run_status: ``pgflow.runs.status`` of the task's run, as ``cancelled_tasks`` gives it.

    Returns:
        ``run_cancelled``, ``run_failed`` or ``run_expired`` when the run ended so; else
        ``task_cancelled`` (the run goes on: the task's step was skipped or completed by
        hand).
    """
    if run_status in ("cancelled", "failed", "expired"):
        return f"run_{run_status}"
    return "task_cancelled"


class TaskCancellation:
    """What the worker knows of one claimed task's cancellation (one per claim).

    Attributes:
        event: the handler's ``ctx.cancelled``; set once the task is known cancelled.
        handler: the asyncio task awaiting the task's ``async def`` handler, while it does
            (set and cleared by the executor); None otherwise (sync handlers, reporting).
    """

    __slots__ = ("_logged", "event", "handler")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.handler: asyncio.Task[Any] | None = None
        self._logged = False

    def cancel(self, task: ClaimedTask, reason: str) -> bool:
        """The task was found cancelled: tell its handler, cancel it if async, log once.

        Args:
            task: the claimed task (for the log line).
            reason: ``run_cancelled``, ``run_failed``, ``run_expired`` or ``task_cancelled``.

        Returns:
            True when an ``async def`` handler was cancelled (nothing is reported for it).
        """
        self.discarded(task, reason)
        handler, self.handler = self.handler, None
        if handler is None or handler.done():
            return False
        handler.cancel()
        return True

    def discarded(self, task: ClaimedTask, reason: str) -> None:
        """Set ``ctx.cancelled`` and log ``result discarded: ...`` unless already logged.

        Called by :meth:`cancel`, and by the executor when a report comes back ignored with
        one of :data:`CANCELLED_REASONS` (the check had not seen the task yet).

        Args:
            task: the claimed task.
            reason: one of :data:`CANCELLED_REASONS`.
        """
        self.event.set()
        if self._logged:
            return
        self._logged = True
        logger.info(
            f"result discarded: {CANCELLED_REASONS.get(reason, 'task cancelled')}",
            extra=fields(**task.log_fields(), reason=reason),
        )


class CancellationCheck:
    """Asks the database which running tasks were cancelled, and tells them.

    Args:
        pool: the worker's connection pool.
        running: the executor's running tasks (asyncio task -> claimed task), read at each
            check (``Executor.running``).
    """

    def __init__(
        self, *, pool: AsyncConnectionPool, running: Mapping[asyncio.Task[Any], ClaimedTask]
    ) -> None:
        self._pool = pool
        self._running = running
        #: Checks that went to the database, and tasks found cancelled (for tests and logs).
        self.checks = 0
        self.found = 0

    async def check(self) -> int:
        """Run one check (nothing is sent while no task runs); never raises a DB error.

        Tasks already known cancelled are not asked about again. A failed check (database
        unreachable) is logged and left to the next heartbeat.

        Returns:
            How many running tasks this check found cancelled.
        """
        tasks = [t for t in self._running.values() if not t.cancellation.event.is_set()]
        if not tasks:
            return 0
        params = {
            "run_ids": [t.run_id for t in tasks],
            "step_slugs": [t.step_slug for t in tasks],
            "task_indexes": [t.task_index for t in tasks],
        }
        try:
            async with self._pool.connection() as conn:
                cur = await conn.execute(queries.CANCELLED_TASKS, params)
                rows = await cur.fetchall()
        except (psycopg.Error, PoolTimeout) as exc:
            # No connection: the pool logs the outage once (pgflow.worker.outage).
            logger.log(
                logging.DEBUG if is_connection_error(exc) else logging.WARNING,
                "cancellation check failed; tried again at the next heartbeat",
                extra=fields(running=len(tasks), error=error_text(exc)),
            )
            return 0
        self.checks += 1
        cancelled = {(str(r[0]), str(r[1]), int(r[2])): r[3] for r in rows}
        found = 0
        for task in tasks:  # a key may be held twice (a stale attempt): tell both
            key = (task.run_id, task.step_slug, task.task_index)
            if key in cancelled and not task.cancellation.event.is_set():
                task.cancellation.cancel(task, reason_of_run_status(cancelled[key]))
                found += 1
        self.found += found
        return found

"""The worker's periodic ``pgflow.requeue_stalled_tasks()`` call, so no pg_cron is needed.

A task is stalled when its worker died on it: it stays ``started`` past its step's timeout
+ 30 s (database clock). ``pgflow.requeue_stalled_tasks()`` puts such tasks back in the
queue (up to 3 times each; a task that stalls a fourth time is given up on: it fails and
its step's ``when_exhausted`` applies) and returns how many it requeued. Every worker
process calls it at start and then every ``requeue_stalled_interval_seconds``
(``--requeue-stalled-interval``, 15 s by default); the SQL takes a try advisory lock, so
many workers calling it at once cost nothing and a concurrent call returns 0. A database or
a pg_cron job may also call it (``pgflow.setup_requeue_stalled_tasks_cron``); both ways do
the same work.

The caller tolerates database loss (logged, tried again at the next tick) and never
decides anything from the worker's clock: the stall threshold and the requeue are
computed by the database.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker import queries
from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")


class StalledTaskRequeuer:
    """Call ``pgflow.requeue_stalled_tasks()`` at start and every ``interval_seconds``.

    After each call, tasks left permanently stalled and still started (by versions before
    0.2.0, which did not apply ``when_exhausted`` to them) are logged as an error, once per
    process, so a run that can no longer finish by itself does not hang silently; they stay
    listed in the view ``pgflow.permanently_stalled_tasks`` until resolved with
    ``pgflow.fail_task`` or ``pgflow.complete_task``.

    Args:
        pool: the worker's connection pool (one connection per call, returned at once).
        interval_seconds: seconds between two calls (> 0; the worker does not create a
            requeuer when the setting is 0).
    """

    def __init__(self, *, pool: AsyncConnectionPool, interval_seconds: float) -> None:
        self._pool = pool
        self._interval_seconds = interval_seconds
        #: Latest permanently_stalled_at already reported (database time; None: none yet).
        self._stalled_reported_until: Any = None
        #: Tasks requeued by this process's calls, in total.
        self.requeued = 0

    async def run(self) -> None:
        """Requeue stalled tasks now and every ``interval_seconds`` until cancelled.

        Never raises: a database error is logged as a warning, any other exception as an
        error with its traceback, and the next tick tries again.
        """
        while True:
            try:
                await self.requeue_once()
            except (psycopg.Error, PoolTimeout) as exc:
                logger.warning("requeue stalled tasks failed", extra=fields(error=error_text(exc)))
            except Exception as exc:  # a timer never dies: log and try again next time
                logger.error(
                    "requeue stalled tasks failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )
            await asyncio.sleep(self._interval_seconds)

    async def requeue_once(self) -> int:
        """Call ``pgflow.requeue_stalled_tasks()`` once and report new permanent stalls.

        Returns:
            How many tasks this call requeued (0 when another call held the lock).

        Raises:
            psycopg.Error: the database failed the call (connection lost, no privilege).
            PoolTimeout: no pooled connection became free in time.
        """
        async with self._pool.connection() as conn:
            cur = await conn.execute(queries.REQUEUE_STALLED_TASKS)
            row = await cur.fetchone()
            requeued = int(row[0]) if row and row[0] is not None else 0
            if requeued:
                self.requeued += requeued
                logger.warning("stalled tasks requeued", extra=fields(requeued=requeued))
            await self._report_permanently_stalled(conn)
        return requeued

    async def _report_permanently_stalled(self, conn: Any) -> None:
        cur = await conn.execute(
            queries.NEW_PERMANENTLY_STALLED, {"since": self._stalled_reported_until}
        )
        row = await cur.fetchone()
        if not row or not row[0]:
            return
        stalled, latest, sample = row
        self._stalled_reported_until = latest
        logger.error(
            "tasks permanently stalled: their worker died on them repeatedly and they are "
            "no longer requeued; their runs cannot finish until each is resolved with "
            "pgflow.fail_task or pgflow.complete_task (view pgflow.permanently_stalled_tasks)",
            extra=fields(permanently_stalled=int(stalled), tasks=sample),
        )

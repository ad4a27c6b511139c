"""The worker's periodic ``pgflow.tick()`` call: waits fire and stalled tasks are requeued.

``pgflow.tick()`` is the one maintenance call for what time alone decides (database clock):

- it fires the waits whose deadline has passed: a step waiting for a signal past its
  ``wait_timeout`` times out (its ``on_timeout`` applies), a timer step (``flow.sleep``)
  that is due completes, and their runs move on;
- then it requeues stalled tasks (``pgflow.requeue_stalled_tasks()``): a task whose worker
  died on it stays ``started`` past its step's timeout + 30 s and is put back in the queue
  (up to 3 times; a task that stalls a fourth time is given up on: it fails and its step's
  ``when_exhausted`` applies).

Every worker process calls it at start and then every ``tick_interval_seconds``
(``--tick-interval``, 5 s by default, so a wait fires within about that long after its
deadline). The SQL takes a try advisory lock: one tick runs at a time across all workers,
a concurrent call returns at once having done nothing, so many workers cost nothing. A
pg_cron job may call it instead or as well (``pgflow.setup_tick_cron``). In upstream mode
(a database with upstream pgflow's SQL only, which has no ``tick``) the worker calls
nothing: upstream's own cron job requeues stalled tasks there.

The caller tolerates database loss (logged, tried again at the next tick) and never
decides anything from the worker's clock.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker import queries
from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")


@dataclass(frozen=True)
class TickResult:
    """What one ``pgflow.tick()`` call did.

    Attributes:
        ran: False when another tick held the lock (nothing was done by this call).
        fired_waits: waits fired: signal waits timed out, timers due (or unreadable).
        requeued_tasks: stalled tasks put back in the queue.
    """

    ran: bool
    fired_waits: int
    requeued_tasks: int


class Ticker:
    """Call ``pgflow.tick()`` at start and every ``interval_seconds``.

    After each call, tasks left permanently stalled and still started (by versions before
    0.2.0, which did not apply ``when_exhausted`` to them) are logged as an error, once per
    process, so a run that can no longer finish by itself does not hang silently; they stay
    listed in the view ``pgflow.permanently_stalled_tasks`` until resolved with
    ``pgflow.fail_task`` or ``pgflow.complete_task``.

    Args:
        pool: the worker's connection pool (one connection per call, returned at once).
        interval_seconds: seconds between two calls (> 0; the worker does not create a
            ticker when the setting is 0).
    """

    def __init__(self, *, pool: AsyncConnectionPool, interval_seconds: float) -> None:
        self._pool = pool
        self._interval_seconds = interval_seconds
        #: Latest permanently_stalled_at already reported (database time; None: none yet).
        self._stalled_reported_until: Any = None
        #: Waits fired by this process's calls, in total.
        self.fired = 0
        #: Tasks requeued by this process's calls, in total.
        self.requeued = 0

    async def run(self) -> None:
        """Tick now and every ``interval_seconds`` until cancelled.

        Never raises: a database error is logged as a warning, any other exception as an
        error with its traceback, and the next tick tries again.
        """
        while True:
            try:
                await self.tick_once()
            except (psycopg.Error, PoolTimeout) as exc:
                logger.warning("tick failed", extra=fields(error=error_text(exc)))
            except Exception as exc:  # a timer never dies: log and try again next time
                logger.error(
                    "tick failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )
            await asyncio.sleep(self._interval_seconds)

    async def tick_once(self) -> TickResult:
        """Call ``pgflow.tick()`` once, log what it did, and report new permanent stalls.

        Returns:
            What the call did (``ran`` False and zeros when another tick held the lock).

        Raises:
            psycopg.Error: the database failed the call (connection lost, no privilege).
            PoolTimeout: no pooled connection became free in time.
        """
        async with self._pool.connection() as conn:
            cur = await conn.execute(queries.TICK)
            row = await cur.fetchone()
            result = TickResult(
                ran=bool(row and row[0]),
                fired_waits=int(row[1] or 0) if row else 0,
                requeued_tasks=int(row[2] or 0) if row else 0,
            )
            if result.fired_waits:
                self.fired += result.fired_waits
                logger.info("waits fired", extra=fields(fired_waits=result.fired_waits))
            if result.requeued_tasks:
                self.requeued += result.requeued_tasks
                logger.warning(
                    "stalled tasks requeued", extra=fields(requeued=result.requeued_tasks)
                )
            await self._report_permanently_stalled(conn)
        return result

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

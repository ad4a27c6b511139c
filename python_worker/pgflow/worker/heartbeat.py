"""The worker's timers: heartbeat and stalled-task sweep.

``pgflow.worker_heartbeat`` every few seconds, and ``pgflow.recover_stalled_tasks`` so
recovery works without pg_cron.

Both run on the worker's pool, tolerate database loss (logged, retried at the next tick)
and never decide anything from the worker's clock: the heartbeat time, the stall
threshold and the requeue are all computed by the database.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker import queries
from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")


class Heartbeat:
    """Refresh each worker row every ``interval_seconds``; report the deprecated ones.

    Args:
        pool: the worker's connection pool.
        workers: flow slug -> worker id of the rows this process owns.
        function_name: used to register a row again if it was pruned meanwhile.
        interval_seconds: the heartbeat period (5 s by default, as upstream).
        on_deprecated: called once with the flow slug whose row says "stop reading".
    """

    def __init__(
        self,
        *,
        pool: AsyncConnectionPool,
        workers: Mapping[str, uuid.UUID],
        function_name: str,
        interval_seconds: float,
        on_deprecated: Callable[[str], None],
    ) -> None:
        self._pool = pool
        self._workers = dict(workers)
        self._function_name = function_name
        self._interval_seconds = interval_seconds
        self._on_deprecated = on_deprecated
        self._deprecated: set[str] = set()
        #: Completed heartbeat rounds.
        self.beats = 0

    async def run(self) -> None:
        """Beat until cancelled."""
        while True:
            await asyncio.sleep(self._interval_seconds)
            try:
                await self.beat()
            except (psycopg.Error, PoolTimeout) as exc:
                logger.warning("heartbeat failed", extra=fields(error=error_text(exc)))
            except Exception as exc:  # a timer never dies: log and beat again next time
                logger.error(
                    "heartbeat failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )

    async def beat(self) -> None:
        """Send one heartbeat per live worker row."""
        async with self._pool.connection() as conn:
            for flow_slug, worker_id in self._workers.items():
                if flow_slug in self._deprecated:
                    continue
                cur = await conn.execute(queries.WORKER_HEARTBEAT, {"worker_id": worker_id})
                row = await cur.fetchone()
                stop = row[0] if row else None
                if stop is None:
                    # The row was pruned: register again under the same (per-boot) id.
                    await conn.execute(
                        queries.REGISTER_WORKER,
                        {
                            "worker_id": worker_id,
                            "queue_name": flow_slug,
                            "function_name": self._function_name,
                        },
                    )
                    logger.warning(
                        "worker row was missing; registered again",
                        extra=fields(flow_slug=flow_slug, worker_id=str(worker_id)),
                    )
                elif stop:
                    self._deprecated.add(flow_slug)
                    logger.warning(
                        "worker deprecated; it stops reading this flow",
                        extra=fields(flow_slug=flow_slug, worker_id=str(worker_id)),
                    )
                    self._on_deprecated(flow_slug)
        self.beats += 1


class StalledTaskSweep:
    """Call ``pgflow.recover_stalled_tasks()`` at start and every ``interval_seconds``.

    The SQL takes a try advisory lock, so many workers sweeping at once cost nothing.
    After each sweep, tasks that became permanently stalled (their worker died on them
    again and again, case B02) are logged as an error, once per process, so a run that
    can no longer finish by itself does not hang silently; they stay listed in the view
    ``pgflow.permanently_stalled_tasks`` until resolved.
    """

    def __init__(self, *, pool: AsyncConnectionPool, interval_seconds: float) -> None:
        self._pool = pool
        self._interval_seconds = interval_seconds
        #: Latest permanently_stalled_at already reported (database time; None: none yet).
        self._stalled_reported_until: Any = None
        #: Tasks requeued by this worker's sweeps.
        self.requeued = 0

    async def run(self) -> None:
        """Sweep until cancelled."""
        while True:
            try:
                await self.sweep()
            except (psycopg.Error, PoolTimeout) as exc:
                logger.warning("stalled-task sweep failed", extra=fields(error=error_text(exc)))
            except Exception as exc:  # a timer never dies: log and sweep again next time
                logger.error(
                    "stalled-task sweep failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )
            await asyncio.sleep(self._interval_seconds)

    async def sweep(self) -> int:
        """Run the sweep once; return how many tasks it requeued."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(queries.RECOVER_STALLED_TASKS)
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

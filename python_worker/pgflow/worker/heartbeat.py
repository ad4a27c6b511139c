"""The worker's heartbeat: ``pgflow.worker_heartbeat`` for each worker row every few seconds.

It runs on the worker's pool, tolerates database loss (retried at the next tick; logged at
DEBUG when the connection is missing or lost, which the pool logs once per outage)
and never decides anything from the worker's clock: the heartbeat time is the database's.
After each round it runs the worker's own check (``on_beat``: which running tasks were
cancelled, :mod:`pgflow.worker.cancellation`), so handlers learn of a cancellation within
one interval.
The other timer, the periodic ``pgflow.tick()`` call (waits, stalled tasks), is in
``tick``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields
from pgflow.worker.modes import PGFLOW_PY, SqlMode
from pgflow.worker.outage import is_connection_error

logger = logging.getLogger("pgflow.worker")


class Heartbeat:
    """Refresh each worker row every ``interval_seconds``; report the deprecated ones.

    Args:
        pool: the worker's connection pool.
        workers: flow slug -> worker id of the rows this process owns.
        function_name: used to register a row again if it was pruned meanwhile.
        interval_seconds: the heartbeat period (5 s by default, as upstream).
        on_deprecated: called once with the flow slug whose row says "stop reading".
        mode: the worker's SQL mode (its heartbeat and registration statements).
        on_beat: awaited after every round, whether the heartbeat went through or not (the
            cancellation check); its errors are logged and the timer goes on.
    """

    def __init__(
        self,
        *,
        pool: AsyncConnectionPool,
        workers: Mapping[str, uuid.UUID],
        function_name: str,
        interval_seconds: float,
        on_deprecated: Callable[[str], None],
        mode: SqlMode = PGFLOW_PY,
        on_beat: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        self._pool = pool
        self._workers = dict(workers)
        self._function_name = function_name
        self._interval_seconds = interval_seconds
        self._on_deprecated = on_deprecated
        self._mode = mode
        self._on_beat = on_beat
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
                logger.log(  # a lost or missing connection: the pool logs the outage once
                    logging.DEBUG if is_connection_error(exc) else logging.WARNING,
                    "heartbeat failed",
                    extra=fields(error=error_text(exc)),
                )
            except Exception as exc:  # a timer never dies: log and beat again next time
                logger.error(
                    "heartbeat failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )
            if self._on_beat is None:
                continue
            try:
                await self._on_beat()
            except Exception as exc:  # same: never the end of the timer
                logger.error(
                    "check after the heartbeat failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )

    async def beat(self) -> None:
        """Send one heartbeat per live worker row."""
        async with self._pool.connection() as conn:
            for flow_slug, worker_id in self._workers.items():
                if flow_slug in self._deprecated:
                    continue
                cur = await conn.execute(self._mode.heartbeat, {"worker_id": worker_id})
                row = await cur.fetchone()
                stop = row[0] if row else None
                if stop is None:
                    # The row was pruned: register again under the same (per-boot) id.
                    await conn.execute(
                        self._mode.register_worker,
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

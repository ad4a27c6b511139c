"""Group commit of task completions: many ``complete_task`` reports in one transaction.

Handlers that finish while a ``pgflow.complete_tasks`` call is on its way wait for it to
return and then go together in the next call (at most ``max_batch`` per call, at most
``max_in_flight`` calls at once). Nothing waits for a timer: an idle worker reports a lone
task at once, a busy one commits many per transaction. Each task is still guarded on its
own in SQL (``complete_tasks`` has the outcome of one ``complete_task`` per item).

A call that fails for a reason other than a lost connection (an output over
``pgflow.max_payload_bytes``, a jsonb the server refuses) would fail again as a whole, so
each of its tasks gets :class:`GroupReportRefused` and is reported alone with
``complete_task`` by the executor, which then fails only the task at fault. A lost
connection is retried with backoff, like any report (reports are idempotent).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from pgflow.worker import queries
from pgflow.worker.db_errors import error_text, send_report
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")


class GroupReportRefused(Exception):
    """The grouped call was refused as a whole; report this task on its own."""


@dataclass(slots=True)
class _Pending:
    run_id: str
    step_slug: str
    task_index: int
    output: str
    done: asyncio.Future[str | None]


class CompletionBatcher:
    """Collects completions and sends them with ``pgflow.complete_tasks``.

    Args:
        pool: the worker's connection pool.
        max_batch: most tasks per call.
        max_in_flight: most calls at once (each holds one pool connection).
        reconnect_max_seconds: backoff cap while the database is unreachable.
    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        max_batch: int,
        max_in_flight: int = 1,
        reconnect_max_seconds: float,
    ) -> None:
        if max_batch < 1 or max_in_flight < 1:
            raise ValueError("max_batch and max_in_flight must be positive")
        self._pool = pool
        self._max_batch = max_batch
        self._max_in_flight = max_in_flight
        self._reconnect_max_seconds = reconnect_max_seconds
        self._queue: deque[_Pending] = deque()
        #: Sender tasks running; counted in the coroutine itself (not in a done callback,
        #: which runs later) so that an item queued just after a sender saw an empty queue
        #: always gets a new sender.
        self._active = 0
        self._senders: set[asyncio.Task[None]] = set()
        #: Calls made and tasks sent (for tests, logs and benchmarks).
        self.calls = 0
        self.tasks = 0

    async def complete(self, run_id: str, step_slug: str, task_index: int, output: str) -> Any:
        """Queue one completion and wait until it is committed.

        Args:
            run_id: the task's run (text uuid).
            step_slug: the task's step.
            task_index: the task's index in its step.
            output: its output as JSON text.

        Returns:
            The task status after the call (``"completed"`` normally; ``None`` when the
            task does not exist).

        Raises:
            GroupReportRefused: the call holding it was refused as a whole (report alone).
        """
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(run_id, step_slug, task_index, output, done))
        if self._active < self._max_in_flight:
            self._active += 1
            sender = asyncio.create_task(self._send_all(), name="complete_tasks")
            self._senders.add(sender)  # a strong reference until it ends
            sender.add_done_callback(self._senders.discard)
        # Shielded: a cancelled waiter (shutdown abandon) must not cancel the shared call.
        return await asyncio.shield(done)

    async def _send_all(self) -> None:
        try:
            await self._drain()
        finally:
            self._active -= 1  # no await between the empty-queue check and this line

    async def _drain(self) -> None:
        while self._queue:
            batch = [self._queue.popleft() for _ in range(min(self._max_batch, len(self._queue)))]
            try:
                statuses = await self._send(batch)
            except psycopg.Error as exc:
                logger.warning(
                    "grouped report refused; reporting its tasks one by one",
                    extra=fields(tasks=len(batch), error=error_text(exc)),
                )
                for item in batch:
                    if not item.done.done():
                        item.done.set_exception(GroupReportRefused(error_text(exc)))
                continue
            except BaseException as exc:  # cancelled at shutdown, or a bug: nobody hangs
                for item in batch:
                    if not item.done.done():
                        item.done.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for item in batch:
                if not item.done.done():
                    item.done.set_result(
                        statuses.get((item.run_id, item.step_slug, item.task_index))
                    )

    async def _send(self, batch: list[_Pending]) -> dict[tuple[str, str, int], str]:
        params = {
            "run_ids": [p.run_id for p in batch],
            "step_slugs": [p.step_slug for p in batch],
            "task_indexes": [p.task_index for p in batch],
            "outputs": [p.output for p in batch],
        }
        rows = await send_report(
            self._pool,
            queries.COMPLETE_TASKS,
            params,
            lambda cur: cur.fetchall(),
            reconnect_max_seconds=self._reconnect_max_seconds,
            describe=lambda: {"tasks": len(batch)},
        )
        self.calls += 1
        self.tasks += len(batch)
        return {(str(run_id), step, index): status for run_id, step, index, status in rows}

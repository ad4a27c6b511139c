"""Polling of one flow's queue: ``pgflow.read_and_start_tasks`` (read + claim, one call).

A :class:`FlowPoller` reads only its own flow's queue (a worker never claims another
flow's tasks) and, inside it, only messages for steps its definition knows; any
other message is left alone and reappears after the short read lease, its task untouched
(``attempts_count`` unchanged), for a worker that knows it.

When to read: at once after a read that filled the batch, after a wake-up (NOTIFY from
the listener, or a completed task whose step has dependents), and otherwise every
``poll_interval_seconds``. pgmq throttles NOTIFY, so a burst may announce only its first
message: after a wake-up the poller reads again once the throttle window has passed.
Visibility and delays are decided by the database clock (``vt``); the worker never
computes when a task becomes due, so a worker with a skewed clock changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, LiteralString

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.claimed_task import ClaimedTask
from pgflow.worker.config import RECONNECT_JITTER, Backoff, WorkerConfig
from pgflow.worker.db_errors import RETRYABLE_DB_ERRORS, error_text
from pgflow.worker.log import fields
from pgflow.worker.outage import is_connection_error

logger = logging.getLogger("pgflow.worker")

#: Columns of a read_and_start_tasks row that make the step_task_record / the pgmq message.
_RECORD_FIELDS = ("run_id", "step_slug", "input", "msg_id", "task_index", "flow_input")
_MESSAGE_FIELDS = ("msg_id", "read_ct", "enqueued_at", "vt", "message", "headers")


class Slots:
    """Concurrency slots shared by every poller of a worker (``max_concurrency``).

    A slot is taken from a read until the task's handler returns; the report that follows
    does not hold it, so the next read overlaps the reports (which then go out together,
    see reports.py). Up to ``capacity`` tasks may wait on their report for free; each
    one beyond that holds a slot again, so a slow database slows reading down instead of
    letting finished tasks pile up: at most 2 x ``capacity`` tasks are in the worker.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._used = 0
        self._reporting = 0
        self._freed = asyncio.Event()

    @property
    def free(self) -> int:
        """Slots a read may take now."""
        return self.capacity - self._used - max(0, self._reporting - self.capacity)

    @property
    def reporting(self) -> int:
        """Tasks whose handler returned and whose report is not done."""
        return self._reporting

    def reserve(self, wanted: int) -> int:
        """Take up to ``wanted`` slots; return how many were taken (possibly 0)."""
        granted = max(0, min(wanted, self.free))
        self._used += granted
        return granted

    def release(self, count: int = 1) -> None:
        """Give back slots (a task ended before its report, or a reservation was unused)."""
        self._used = max(0, self._used - count)
        if count:
            self._freed.set()

    def handler_done(self) -> None:
        """A task's handler returned: its slot is free, its report pending."""
        self._used = max(0, self._used - 1)
        self._reporting += 1
        self._freed.set()

    def report_done(self) -> None:
        """A task's report finished (or was abandoned) after :meth:`handler_done`."""
        self._reporting = max(0, self._reporting - 1)
        self._freed.set()

    async def wait_free(self) -> None:
        """Return once at least one slot is free."""
        while self.free <= 0:
            self._freed.clear()
            await self._freed.wait()


class FlowPoller:
    """Reads and claims the tasks of one flow for one worker row.

    Args:
        flow: the DSL flow served.
        worker_id: this process's ``pgflow.workers`` row for the flow.
        pool: the worker's connection pool.
        slots: the shared concurrency slots.
        config: worker settings (batch size, poll interval, lease, backoff cap).
        spawn: starts running a claimed task (it owns one reserved slot).
        stop: set when reading must end (shutdown or deprecation).
        statement: the read-and-claim statement of the worker's SQL mode (the columns of
            ``queries.READ_AND_START_TASKS``).
        observe_poll: called with the seconds of each read that succeeded, pool checkout
            included (the worker's poll latency histogram).
    """

    def __init__(
        self,
        *,
        flow: Flow,
        worker_id: uuid.UUID,
        pool: AsyncConnectionPool,
        slots: Slots,
        config: WorkerConfig,
        spawn: Callable[[ClaimedTask], None],
        stop: asyncio.Event,
        statement: LiteralString = queries.READ_AND_START_TASKS,
        observe_poll: Callable[[float], None] | None = None,
    ) -> None:
        self.flow = flow
        self._observe_poll = observe_poll
        self.worker_id = worker_id
        self._pool = pool
        self._slots = slots
        self._config = config
        self._spawn = spawn
        self._stop = stop
        self._statement = statement
        self._wake = asyncio.Event()
        self._step_slugs = frozenset(step.slug for step in flow.steps)
        self._step_slug_list = sorted(self._step_slugs)
        self._unknown_logged: set[str] = set()
        #: Read attempts (successful or not); for tests and diagnostics.
        self.polls = 0

    def wake(self) -> None:
        """Ask for a read now (NOTIFY received, dependents may have become ready)."""
        self._wake.set()

    async def run(self) -> None:
        """Read and claim until ``stop`` is set. Database errors are retried with backoff.

        A lost or missing connection is logged at DEBUG: the pool logs the outage once.
        """
        backoff = Backoff(self._config.reconnect_max_seconds, jitter=RECONNECT_JITTER)
        recheck = False
        log = {"flow_slug": self.flow.slug, "worker_id": str(self.worker_id)}
        while not self._stop.is_set():
            await self._until(self._slots.wait_free())
            if self._stop.is_set():
                break
            qty = self._slots.reserve(self._config.batch_size)
            try:
                self._wake.clear()
                claimed, read = await self.poll_once(qty)
            except RETRYABLE_DB_ERRORS as exc:
                self._slots.release(qty)
                delay = backoff.next_delay()
                logger.log(
                    logging.DEBUG if is_connection_error(exc) else logging.WARNING,
                    "database unreachable while polling; retrying",
                    extra=fields(**log, error=error_text(exc), retry_in_s=delay),
                )
                await self._until(asyncio.sleep(delay))
                continue
            except Exception as exc:  # SQL errors and bugs alike: the poller never dies
                self._slots.release(qty)
                delay = backoff.next_delay()
                logger.error(
                    "polling failed; retrying",
                    exc_info=None if isinstance(exc, psycopg.Error) else exc,
                    extra=fields(**log, error=error_text(exc), retry_in_s=delay),
                )
                await self._until(asyncio.sleep(delay))
                continue
            backoff.reset()
            self._slots.release(qty - len(claimed))
            for task in claimed:
                self._spawn(task)
            if read >= qty:
                continue  # a full batch: more are probably waiting
            if recheck:
                # Woken by a (throttled) NOTIFY: read once more after the throttle window.
                timeout = min(self._config.poll_interval_seconds, self._throttle_seconds())
            else:
                timeout = self._config.poll_interval_seconds
            recheck = await self._wait_for_wake(timeout)

    def _throttle_seconds(self) -> float:
        return self._config.notify_throttle_ms / 1000 + 0.05

    async def _wait_for_wake(self, timeout: float) -> bool:
        """Wait for a wake-up, ``stop`` or the timeout; True when woken."""
        if self._wake.is_set():
            return True
        waiter = asyncio.ensure_future(self._wake.wait())
        stopper = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({waiter, stopper}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            waiter.cancel()
            stopper.cancel()
        return self._wake.is_set()

    async def _until(self, awaitable: Any) -> None:
        """Await ``awaitable`` unless ``stop`` is set first."""
        work = asyncio.ensure_future(awaitable)
        stopper = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({work, stopper}, return_when="FIRST_COMPLETED")
        finally:
            work.cancel()
            stopper.cancel()

    async def poll_once(self, qty: int) -> tuple[list[ClaimedTask], int]:
        """Read up to ``qty`` messages and claim their tasks (one ``read_and_start_tasks`` call).

        Returns:
            The claimed tasks, and how many messages were read.
        """
        self.polls += 1
        began = time.perf_counter()
        async with self._pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            await cur.execute(
                self._statement,
                {
                    "flow_slug": self.flow.slug,
                    "worker_id": self.worker_id,
                    "qty": qty,
                    "vt": self._config.visibility_timeout_seconds,
                    "step_slugs": self._step_slug_list,
                },
            )
            rows = await cur.fetchall()
        if self._observe_poll is not None:
            self._observe_poll(time.perf_counter() - began)
        claimed = []
        worker_id = str(self.worker_id)
        for row in rows:
            if row["run_id"] is None:
                self._knows(row)  # logs a message for a step this worker does not define
                continue
            claimed.append(
                ClaimedTask(
                    flow=self.flow,
                    worker_id=worker_id,
                    record={"flow_slug": self.flow.slug, **{k: row[k] for k in _RECORD_FIELDS}},
                    message={key: row[key] for key in _MESSAGE_FIELDS},
                    attempt=row["attempts_count"] or 1,
                )
            )
        return claimed, len(rows)

    def _knows(self, message: dict[str, Any]) -> bool:
        body = message.get("message") or {}
        step_slug = body.get("step_slug") if isinstance(body, dict) else None
        if step_slug in self._step_slugs and body.get("flow_slug") == self.flow.slug:
            return True
        key = str(step_slug)
        if key not in self._unknown_logged:
            self._unknown_logged.add(key)
            logger.warning(
                "message for a step this worker does not define; left for another worker",
                extra=fields(
                    flow_slug=self.flow.slug, step_slug=step_slug, msg_id=message.get("msg_id")
                ),
            )
        return False

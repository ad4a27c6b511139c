"""Reports of task outcomes, grouped: many ``complete_tasks`` / ``fail_tasks`` items per call.

Every outcome of a task goes to the database the same way: the executor hands a
:class:`TaskReport` to a :class:`ReportBatcher` and gets back a :class:`ReportResult`, the row
the SQL function returned for it (the task's status, and the outcome and reason of the
report). Reports that arrive while a call is on its way wait for it to return and then go
together in the next call (at most ``max_batch`` per call, one call at a time). Nothing
waits for a timer: an idle worker reports a lone task at once, a busy one commits many per
transaction (group commit). ``max_batch=1`` sends each report in its own call, at once, as
many at a time as the pool has connections (one transaction per task, as upstream workers
do); those calls wait for a connection in the pool's first-come order, so a read that
follows them waits until they are sent, and claims its tasks in batches as before.

Every report carries the attempt it is about (the ``attempts_count`` of the claim): when a
newer attempt holds the task (the worker was frozen past the stall threshold and the task
was requeued and claimed again), SQL ignores it with reason ``stale_attempt``.

SQL judges each report on its own (an output over the size limit is *refused* for its own
report only), so a call normally never fails as a whole. A lost connection is retried with
backoff (reports are idempotent). Should the server refuse a grouped call for any other
reason, its reports are sent again one per call, so the refusal reaches only the report at
fault, as a ``psycopg.Error`` from :meth:`ReportBatcher.report`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, LiteralString

import psycopg
from psycopg_pool import AsyncConnectionPool

from pgflow.worker.config import WorkerConfig
from pgflow.worker.db_errors import error_text, send_report
from pgflow.worker.log import fields
from pgflow.worker.metrics import WorkerMetrics
from pgflow.worker.modes import SqlMode

logger = logging.getLogger("pgflow.worker")


@dataclass(frozen=True, slots=True)
class TaskReport:
    """One outcome of one attempt of a task, as sent to SQL.

    Attributes:
        run_id: the task's run (text uuid).
        step_slug: the task's step.
        task_index: the task's index in its step.
        attempt: the attempt reported (``attempts_count`` of the claim; 1 = first).
        payload: JSON text of the output (completions), or the error message (failures).
        permanent: a failure no retry can cure (the handler raised ``PermanentError`` or
            returned a value that is not JSON): the task is exhausted at once. Sent only by
            a batcher made with ``permanent=True`` (failures on pgflow-py's SQL).
        traceback: the handler's formatted traceback (failures; None: none), stored in the
            details of the ``task:failed`` event the report records (bounded to 16384
            characters in SQL), never in the error message. Sent only by a batcher made
            with ``permanent=True``, as :attr:`permanent`.
    """

    run_id: str
    step_slug: str
    task_index: int
    attempt: int
    payload: str
    permanent: bool = False
    traceback: str | None = None


@dataclass(frozen=True, slots=True)
class ReportResult:
    """What SQL made of one report.

    Attributes:
        status: the task's status after the call (None: no such task).
        outcome: ``completed``, ``retried``, ``failed``, ``refused`` or ``ignored``.
        reason: why, for every outcome but ``completed`` / ``retried`` (``stale_attempt``,
            ``unknown_attempt``, ``payload_too_large``, ``type_violation``, ``exhausted``,
            ``run_failed``, ``run_cancelled``, ``run_expired``, ``task_cancelled``,
            ``step_not_started``, ``task_not_started``, ``unknown_task``).
        detail: a sentence for refused and failed completions (else None).
    """

    status: str | None
    outcome: str
    reason: str | None
    detail: str | None = None


@dataclass(slots=True)
class _Pending:
    report: TaskReport
    done: asyncio.Future[ReportResult]


class ReportBatcher:
    """Collects reports of one kind and sends them with one SQL statement per batch.

    Args:
        pool: the worker's connection pool.
        statement: ``queries.COMPLETE_TASKS`` or ``queries.FAIL_TASKS``: takes the array
            parameters ``run_ids``, ``step_slugs``, ``task_indexes``, ``payloads``,
            ``attempts`` and returns one row per item, in order, with the columns of
            :class:`ReportResult`.
        one_report_statement: the same call for a lone report, with the scalar parameters
            ``run_id``, ``step_slug``, ``task_index``, ``payload``, ``attempt``
            (``queries.COMPLETE_TASKS_ONE_REPORT`` or ``queries.FAIL_TASKS_ONE_REPORT``).
        name: the SQL function's name, for logs.
        max_batch: most reports per call (1: each report in its own call, at once).
        reconnect_max_seconds: backoff cap while the database is unreachable.
        permanent: the statements are pgflow-py's failure reports (``queries.FAIL_TASKS``
            and ``queries.FAIL_TASKS_ONE_REPORT``) and also take
            :attr:`TaskReport.permanent` (array parameter ``permanents``, scalar
            ``permanent``) and :attr:`TaskReport.traceback` (``tracebacks``: NULL when no
            report of the call has one; scalar ``traceback``). False for completions and
            for upstream mode, whose statements have no such arguments.
        observe: called after each call that went through with ``(seconds, reports)``:
            its time to the commit (pool checkout and reconnection included) and how many
            reports it carried (the worker's report latency and group commit histograms).
    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        statement: LiteralString,
        one_report_statement: LiteralString,
        name: str,
        max_batch: int,
        reconnect_max_seconds: float,
        permanent: bool = False,
        observe: Callable[[float, int], None] | None = None,
    ) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be positive")
        self._pool = pool
        self._statement = statement
        self._one_report_statement = one_report_statement
        self._name = name
        self._max_batch = max_batch
        self._reconnect_max_seconds = reconnect_max_seconds
        self._permanent = permanent
        self._observe = observe
        self._queue: deque[_Pending] = deque()
        #: The sender task, while one runs. Set and cleared in the coroutine itself (not in
        #: a done callback, which runs later) so that an item queued just after the sender
        #: saw an empty queue always gets a new sender.
        self._sender: asyncio.Task[None] | None = None
        #: Calls made and reports sent (for tests, logs and benchmarks).
        self.calls = 0
        self.reports = 0

    async def report(self, report: TaskReport) -> ReportResult:
        """Queue one report and wait until it is committed.

        Returns:
            SQL's verdict on it.

        Raises:
            psycopg.Error: the server refused this report's statement (other than by
                losing the connection, which is retried).
        """
        if self._max_batch == 1:  # nothing is shared: the caller's own call
            (result,) = await self._send([report])
            return result
        done: asyncio.Future[ReportResult] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(report, done))
        if self._sender is None:
            self._sender = asyncio.create_task(self._send_all(), name=self._name)
        # Shielded: a cancelled waiter (shutdown abandon) must not cancel the shared call.
        return await asyncio.shield(done)

    async def _send_all(self) -> None:
        try:
            await self._drain()
        finally:
            self._sender = None  # no await between the empty-queue check and this line

    async def _drain(self) -> None:
        while self._queue:
            batch = [self._queue.popleft() for _ in range(min(self._max_batch, len(self._queue)))]
            try:
                await self._send_settling(batch)
            except BaseException as exc:  # cancelled at shutdown, or a bug: nobody hangs
                for item in batch:
                    if not item.done.done():
                        item.done.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise

    async def _send_settling(self, batch: list[_Pending]) -> None:
        """Send a batch and settle its futures; a refused batch is sent again item by item."""
        try:
            results = await self._send([p.report for p in batch])
        except psycopg.Error as exc:
            if len(batch) == 1:
                batch[0].done.set_exception(exc)
                return
            logger.warning(
                "grouped report refused; sending its reports one per call",
                extra=fields(function=self._name, reports=len(batch), error=error_text(exc)),
            )
            for item in batch:
                await self._send_settling([item])
            return
        for item, result in zip(batch, results, strict=True):
            if not item.done.done():
                item.done.set_result(result)

    async def _send(self, batch: list[TaskReport]) -> list[ReportResult]:
        statement = self._statement
        params: dict[str, Any]
        if len(batch) == 1:
            (one,) = batch
            statement = self._one_report_statement
            params = {
                "run_id": one.run_id,
                "step_slug": one.step_slug,
                "task_index": one.task_index,
                "payload": one.payload,
                "attempt": one.attempt,
            }
            if self._permanent:
                params["permanent"] = one.permanent
                params["traceback"] = one.traceback
        else:
            params = {
                "run_ids": [r.run_id for r in batch],
                "step_slugs": [r.step_slug for r in batch],
                "task_indexes": [r.task_index for r in batch],
                "payloads": [r.payload for r in batch],
                "attempts": [r.attempt for r in batch],
            }
            if self._permanent:
                params["permanents"] = [r.permanent for r in batch]
                # NULL, not a list of NULLs, when none has one: adapting a list costs.
                tracebacks = [r.traceback for r in batch]
                params["tracebacks"] = (
                    tracebacks if any(t is not None for t in tracebacks) else None
                )

        async def read(cur: Any) -> list[Any]:
            return list(await cur.fetchall())

        began = time.perf_counter()
        rows = await send_report(
            self._pool,
            statement,
            params,
            read,
            reconnect_max_seconds=self._reconnect_max_seconds,
            describe=lambda: {"function": self._name, "reports": len(batch)},
        )
        if len(rows) != len(batch):  # one row per item, in order: the SQL contract
            raise RuntimeError(f"{self._name} returned {len(rows)} rows for {len(batch)} reports")
        self.calls += 1
        self.reports += len(batch)
        if self._observe is not None:
            self._observe(time.perf_counter() - began, len(batch))
        return [ReportResult(*row) for row in rows]


def report_batchers(
    pool: AsyncConnectionPool, mode: SqlMode, config: WorkerConfig, metrics: WorkerMetrics
) -> tuple[ReportBatcher, ReportBatcher]:
    """The completions and failures batchers of a worker, as its SQL mode reports.

    With pgflow-py's SQL (``mode.group_commit``) reports go together through
    ``complete_tasks`` / ``fail_tasks``, at most ``config.complete_batch_size`` per call;
    with upstream's, one per call through ``complete_task`` / ``fail_task``. Each batcher
    reports its calls to ``metrics`` under its function's name.
    """
    complete, fail = (
        ("complete_tasks", "fail_tasks") if mode.group_commit else ("complete_task", "fail_task")
    )
    max_batch = config.complete_batch_size if mode.group_commit else 1
    completions = ReportBatcher(
        pool,
        statement=mode.complete_batch,
        one_report_statement=mode.complete_one,
        name=complete,
        max_batch=max_batch,
        reconnect_max_seconds=config.reconnect_max_seconds,
        observe=metrics.report_observer(complete),
    )
    failures = ReportBatcher(
        pool,
        statement=mode.fail_batch,
        one_report_statement=mode.fail_one,
        name=fail,
        max_batch=max_batch,
        reconnect_max_seconds=config.reconnect_max_seconds,
        permanent=mode.run_control,
        observe=metrics.report_observer(fail),
    )
    return completions, failures

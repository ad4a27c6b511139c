"""Run one claimed task and report its outcome.

The executor assembles the handler input, calls the handler under its timeout, and reports
with ``pgflow.complete_task`` or ``pgflow.fail_task``.

Handlers never take the worker down: any exception (or a timeout, or an output that is not
JSON) becomes a ``fail_task`` with the text ``"<ExceptionType>: <message>"``; the SQL then
decides between a retry (delay computed from the database clock) and exhaustion.

Timeouts: a ``def`` handler runs in its own thread and is abandoned at its timeout; an
``async def`` handler is cancelled at its timeout. An ``async def`` handler that blocks
the event loop (``time.sleep``, a blocking driver, long CPU work without ``await``)
cannot be interrupted, because the timeout is itself a loop callback: it runs to its end
(the loop watchdog logs a warning naming it meanwhile) and, if that end came after its
timeout, its result is discarded and the task fails with ``TimeoutError`` as any other
overrun does.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from pgflow.context import Context, FlowInputSource, KnownFlowInput
from pgflow.worker import queries
from pgflow.worker.completions import CompletionBatcher, GroupReportRefused
from pgflow.worker.db_errors import error_text, send_report
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")

#: An async handler returning this long after its timeout blocked the loop at its deadline
#: (a free loop would have cancelled it); below it, the lateness is scheduling jitter.
OVERRUN_TOLERANCE_SECONDS = 0.1


@dataclass(frozen=True, kw_only=True)
class ClaimedTask:
    """A task ``start_tasks`` returned to this worker, with what the poller knows of it.

    Attributes:
        flow: the DSL flow (``pgflow.dsl.Flow``) the task belongs to.
        worker_id: the worker row that claimed it (text uuid).
        record: the ``step_task_record`` row as a dict.
        message: the pgmq message read for it (``msg_id``, ``read_ct``, ...).
        attempt: ``attempts_count`` after the claim (1 = first attempt).
    """

    flow: Any
    worker_id: str
    record: Mapping[str, Any]
    message: Mapping[str, Any]
    attempt: int

    @property
    def run_id(self) -> str:
        """The run id as text."""
        return str(self.record["run_id"])

    @property
    def step_slug(self) -> str:
        """The step slug."""
        return str(self.record["step_slug"])

    @property
    def task_index(self) -> int:
        """The task index."""
        return int(self.record["task_index"])

    def log_fields(self) -> dict[str, Any]:
        """Fields every log line about this task carries."""
        return {
            "flow_slug": self.flow.slug,
            "run_id": self.run_id,
            "step_slug": self.step_slug,
            "task_index": self.task_index,
            "attempt": self.attempt,
            "msg_id": self.record["msg_id"],
            "worker_id": self.worker_id,
        }


def handler_input(step: Any, record: Mapping[str, Any]) -> Any:
    """Return what the step's handler receives, as upstream pgflow's TS workers do.

    Root single step: the run input (``flow_input``; SQL puts ``{}`` in ``input``).
    Dependent single step: ``{dep_slug: output}`` over completed dependencies. Map step:
    one array element. The last two are ``record["input"]`` as ``start_tasks`` built it.
    """
    if step.step_type == "single" and step.is_root:
        return record["flow_input"]
    return record["input"]


def encode_output(value: Any) -> str:
    """Serialise a handler result as JSON text for ``complete_task``.

    Every JSON value is kept as itself: ``None`` becomes ``null`` (JSON null, never SQL
    NULL), and ``0``, ``False``, ``""``, ``{}``, ``[]`` stay what they are.

    Raises:
        TypeError: the value is not JSON-serialisable (a set, an object, NaN/Infinity...).
    """
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(
            f"handler output is not JSON-serialisable ({type(value).__name__}): {exc}"
        ) from exc


def run_in_daemon_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """Run a sync handler in its own daemon thread; return a future for its result.

    A thread per task, not a shared pool: a handler that outlives its timeout (a thread
    cannot be killed) then occupies nothing others need, and daemon threads never keep a
    stopping process alive after the shutdown grace.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        try:
            result = context.run(fn, *args)
        except BaseException as exc:
            outcome: tuple[bool, Any] = (False, exc)
        else:
            outcome = (True, result)
        with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=target, name="pgflow-handler", daemon=True).start()
    return future


class Executor:
    """Runs claimed tasks and reports their outcome.

    Args:
        pool: the worker's connection pool.
        flow_inputs: returns the :class:`FlowInputSource` for a run id (lazy loader).
        shutdown: set when the worker is shutting down; handed to handlers as ``ctx.shutdown``.
        reconnect_max_seconds: backoff cap while the database is unreachable for a report.
        on_reported: called with ``(task, completed)`` after a report went through (the
            worker uses it to poll at once when the step has dependents).
        completions: group commit of completions (``pgflow.complete_tasks``); None = one
            ``pgflow.complete_task`` call per task.
        on_handler_done: called with the task once its handler has returned (or failed,
            or timed out), before the report is sent.
    """

    def __init__(
        self,
        *,
        pool: AsyncConnectionPool,
        flow_inputs: Callable[[str], FlowInputSource],
        shutdown: threading.Event,
        reconnect_max_seconds: float,
        on_reported: Callable[[ClaimedTask, bool], None] | None = None,
        completions: CompletionBatcher | None = None,
        on_handler_done: Callable[[ClaimedTask], None] | None = None,
    ) -> None:
        self._pool = pool
        self._completions = completions
        self._on_handler_done = on_handler_done
        self._flow_inputs = flow_inputs
        self._shutdown = shutdown
        self._reconnect_max_seconds = reconnect_max_seconds
        self._on_reported = on_reported
        #: asyncio task -> the claimed task it runs (for the loop watchdog).
        self.running: dict[asyncio.Task[Any], ClaimedTask] = {}

    def describe(self, runner: asyncio.Task[Any] | None) -> dict[str, Any]:
        """Log fields of the claimed task an asyncio task is running ({} if none)."""
        if runner is None:
            return {}
        task = self.running.get(runner)
        return task.log_fields() if task is not None else {"asyncio_task": runner.get_name()}

    def context_for(self, task: ClaimedTask) -> Context:
        """Build the handler context of a task."""
        record = task.record
        step = task.flow.get_step(task.step_slug)
        source: FlowInputSource
        if step.step_type == "single" and step.is_root and record["flow_input"] is not None:
            source = KnownFlowInput(record["flow_input"])
        else:
            source = self._flow_inputs(task.run_id)
        return Context(
            flow_slug=task.flow.slug,
            run_id=task.run_id,
            step_slug=task.step_slug,
            task_index=task.task_index,
            attempt=task.attempt,
            worker_id=task.worker_id,
            raw_message=dict(task.message),
            step_task={**record, "run_id": task.run_id},
            shutdown=self._shutdown,
            timeout_seconds=int(task.flow.effective_timeout(task.step_slug)),
            flow_input_source=source,
        )

    async def invoke(self, step: Any, value: Any, ctx: Context) -> Any:
        """Call the step handler with ``(input, ctx)`` or ``(input)``; await async ones."""
        args = (value, ctx) if step.accepts_context else (value,)
        if step.is_async or inspect.iscoroutinefunction(step.handler):
            result = await step.handler(*args)
        else:
            result = await run_in_daemon_thread(step.handler, *args)
        if inspect.isawaitable(result):  # a plain def that returned a coroutine
            result = await result
        return result

    async def run(self, task: ClaimedTask) -> None:
        """Run one task to its report. Cancellation abandons it (nothing is reported)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        current = asyncio.current_task()
        if current is not None:
            self.running[current] = task
        try:
            await self._run(task, loop, started)
        finally:
            if current is not None:
                self.running.pop(current, None)

    async def _run(
        self,
        task: ClaimedTask,
        loop: asyncio.AbstractEventLoop,
        started: float,
    ) -> None:
        if logger.isEnabledFor(logging.INFO):
            logger.info("task started", extra=fields(**task.log_fields()))
        payload: str | None = None
        error: str | None = None
        failure: BaseException | None = None  # the handler's exception, for its traceback
        deadline: asyncio.Timeout | None = None
        is_sync = False
        timeout_seconds = 0
        try:
            step = task.flow.get_step(task.step_slug)
            is_sync = not (step.is_async or inspect.iscoroutinefunction(step.handler))
            ctx = self.context_for(task)
            timeout_seconds = ctx.timeout_seconds
            handler_started = loop.time()
            async with asyncio.timeout(timeout_seconds) as deadline:
                output = await self.invoke(step, handler_input(step, task.record), ctx)
            overran = loop.time() - handler_started - timeout_seconds
            if not is_sync and overran > OVERRUN_TOLERANCE_SECONDS:
                # It blocked the loop, so the timeout could not interrupt it: its result
                # came too late and is treated like any other overrun.
                error = (
                    f"TimeoutError: handler exceeded the step timeout of {timeout_seconds} s "
                    f"(it blocked the event loop, so it could not be interrupted)"
                )
                logger.warning(
                    "async handler blocked the event loop past its timeout; result discarded",
                    extra=fields(**task.log_fields(), overran_s=round(overran, 1)),
                )
            else:
                payload = encode_output(output)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # handler errors of every kind fail the task only
            if isinstance(exc, TimeoutError) and deadline is not None and deadline.expired():
                error = f"TimeoutError: handler exceeded the step timeout of {timeout_seconds} s"
                if is_sync:
                    logger.warning(
                        "sync handler still running after its timeout; its thread is abandoned",
                        extra=fields(**task.log_fields()),
                    )
            else:
                error = error_text(exc)
                failure = exc
        duration_ms = round((loop.time() - started) * 1000, 1)
        if self._on_handler_done is not None:
            self._on_handler_done(task)
        if payload is not None:
            completed = await self._complete(task, payload, duration_ms)
        else:
            completed = False
            await self._fail(task, error or "Error", duration_ms, failure)
        if self._on_reported is not None:
            self._on_reported(task, completed)

    async def _complete(
        self, task: ClaimedTask, payload: str, duration_ms: float
    ) -> bool:
        params = {
            "run_id": task.run_id,
            "step_slug": task.step_slug,
            "task_index": task.task_index,
            "output": payload,
        }
        try:
            if self._completions is not None:
                try:
                    status = await self._completions.complete(
                        task.run_id, task.step_slug, task.task_index, payload
                    )
                except GroupReportRefused:  # find out whether this task was at fault
                    status = await self._report(queries.COMPLETE_TASK, params, task)
            else:
                status = await self._report(queries.COMPLETE_TASK, params, task)
        except psycopg.Error as exc:  # e.g. jsonb refuses \u0000: fail the task instead
            await self._fail(task, error_text(exc), duration_ms)
            return False
        if logger.isEnabledFor(logging.INFO):
            logger.info(
                "task completed",
                extra=fields(**task.log_fields(), duration_ms=duration_ms, task_status=status),
            )
        return True

    async def _fail(
        self,
        task: ClaimedTask,
        message: str,
        duration_ms: float,
        failure: BaseException | None = None,
    ) -> None:
        params = {
            "run_id": task.run_id,
            "step_slug": task.step_slug,
            "task_index": task.task_index,
            "error_message": message,
        }
        try:
            status = await self._report(queries.FAIL_TASK, params, task)
        except psycopg.Error as exc:
            logger.error(
                "fail_task raised; the task is left to requeue_stalled_tasks",
                extra=fields(**task.log_fields(), error=error_text(exc)),
            )
            return
        logger.warning(
            "task failed",
            exc_info=failure,  # the handler's traceback in the log (field "exc" in JSON)
            extra=fields(
                **task.log_fields(), duration_ms=duration_ms, error=message, task_status=status
            ),
        )

    async def _report(self, query: Any, params: Mapping[str, Any], task: ClaimedTask) -> Any:
        """Send a report (see :func:`send_report`); return the task status it reports."""

        async def status(cur: Any) -> Any:
            row = await cur.fetchone()
            return row[0] if row else None

        return await send_report(
            self._pool,
            query,
            params,
            status,
            reconnect_max_seconds=self._reconnect_max_seconds,
            describe=task.log_fields,
        )

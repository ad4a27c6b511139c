"""Run one claimed task (:class:`~pgflow.worker.claimed_task.ClaimedTask`) to its report.

The executor assembles the handler input, calls the handler under its timeout, and reports
the outcome through a :class:`~pgflow.worker.reports.ReportBatcher`: ``pgflow.complete_tasks``
for an output, ``pgflow.fail_tasks`` for a failure, each report naming the attempt that ran
(a late report of an older attempt is ignored in SQL). Every report comes back with SQL's
verdict (:class:`~pgflow.worker.reports.ReportResult`), logged here; an output SQL refuses
(over ``pgflow.max_payload_bytes``, or a jsonb the server rejects) fails the task instead.
Each outcome is counted in the worker's :class:`~pgflow.worker.metrics.WorkerMetrics` as
SQL answered it. Logs: a task's start and completion at DEBUG; a failed attempt once, with
the handler's traceback, at WARNING when SQL retries it and at ERROR when it was the last.

Handlers never take the worker down: any exception (or a timeout, or an output that is not
JSON) becomes a failure report with the text ``"<ExceptionType>: <message>"`` and, for an
exception the handler raised, its formatted traceback (kept in the details of the run's
``task:failed`` event; none for a timeout or an output that is not JSON); the SQL then
decides between a retry (delay computed from the database clock) and exhaustion. A
:class:`~pgflow.errors.PermanentError` or an output that is not JSON is reported
*permanent*: no retry can cure it, so the task is exhausted at once. An ``async def``
handler whose task was cancelled in SQL meanwhile is cancelled and nothing is reported; a
sync one's report comes back ignored (:mod:`pgflow.worker.cancellation`).

Timeouts: a ``def`` handler runs in its own thread and is abandoned at its timeout; an
``async def`` handler is cancelled at its timeout. An ``async def`` handler that blocks
the event loop (``time.sleep``, a blocking driver, long CPU work without ``await``)
cannot be interrupted, because the timeout is itself a loop callback: it runs to its end
(the loop watchdog logs a warning naming it meanwhile) and, if that end came after its
timeout, its result is discarded and the task fails with ``TimeoutError`` as any other
overrun does. Timeouts are measured on a :class:`~pgflow.worker.suspension.SuspensionClock`,
which leaves out the time the whole worker process was frozen (SIGSTOP, a paused VM).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import threading
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg

from pgflow.context import Context, FlowInputSource, KnownFlowInput, Signal
from pgflow.dsl import Step
from pgflow.errors import PermanentError
from pgflow.worker.cancellation import CANCELLED_REASONS
from pgflow.worker.claimed_task import ClaimedTask
from pgflow.worker.db_errors import error_text
from pgflow.worker.handler_call import encode_output, handler_input, invoke_handler
from pgflow.worker.log import MAX_FIELD_CHARS, bounded, fields
from pgflow.worker.metrics import StepMetrics, WorkerMetrics
from pgflow.worker.reports import ReportBatcher, ReportResult, TaskReport
from pgflow.worker.step_signal import waits_for_signal
from pgflow.worker.suspension import SuspensionClock, active_timeout

logger = logging.getLogger("pgflow.worker")

#: An async handler returning this long after its timeout blocked the loop at its deadline
#: (a free loop would have cancelled it); below it, the lateness is scheduling jitter.
OVERRUN_TOLERANCE_SECONDS = 0.1


def failure_traceback(exc: BaseException) -> str:
    """Return the formatted traceback of ``exc`` as a failure report sends it.

    NUL is written as a backslash and ``x00`` (text cannot hold it); the text is bounded
    (:func:`~pgflow.worker.log.bounded`) a little under the 16384 characters SQL keeps.
    """
    text = "".join(traceback.format_exception(exc)).replace("\x00", "\\x00")
    return bounded(text, MAX_FIELD_CHARS - 64)


class Executor:
    """Runs claimed tasks and reports their outcome.

    Args:
        flow_inputs: returns the :class:`FlowInputSource` for a run id (lazy loader).
        shutdown: set when the worker is shutting down; handed to handlers as ``ctx.shutdown``.
        completions: sends outputs (``pgflow.complete_tasks``).
        failures: sends failures (``pgflow.fail_tasks``).
        clock: measures handler time without the process's own suspensions (its ticker
            thread is started here if it is not running yet).
        on_reported: called with ``(task, completed)`` after a report went through (the
            worker uses it to poll at once when the step has dependents).
        on_handler_done: called with the task once its handler has returned (or failed,
            or timed out), before the report is sent.
        step_signals: returns the signal a step of a run took (``run_id, step_slug``),
            for ``ctx.signal``; asked only for steps that wait for a signal before their
            handler runs (None: never asked, ``ctx.signal`` stays None).
        metrics: where each task's start, outcome (as SQL answered its report) and
            handler time are counted (None: metrics of its own, read by nobody).
    """

    def __init__(
        self,
        *,
        flow_inputs: Callable[[str], FlowInputSource],
        shutdown: threading.Event,
        completions: ReportBatcher,
        failures: ReportBatcher,
        clock: SuspensionClock,
        on_reported: Callable[[ClaimedTask, bool], None] | None = None,
        on_handler_done: Callable[[ClaimedTask], None] | None = None,
        step_signals: Callable[[str, str], Awaitable[Signal | None]] | None = None,
        metrics: WorkerMetrics | None = None,
    ) -> None:
        self._step_signals = step_signals
        self._metrics = metrics if metrics is not None else WorkerMetrics()
        self._completions = completions
        self._failures = failures
        self._clock = clock
        clock.start()
        self._on_handler_done = on_handler_done
        self._flow_inputs = flow_inputs
        self._shutdown = shutdown
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
            cancelled=task.cancellation.event,
        )

    async def invoke(self, step: Step, value: Any, ctx: Context) -> Any:
        """Call the step handler (:func:`~pgflow.worker.handler_call.invoke_handler`)."""
        return await invoke_handler(step, value, ctx)

    async def run(self, task: ClaimedTask) -> None:
        """Run one task to its report. Cancellation abandons it (nothing is reported).

        The asyncio task running this is cancelled at a shutdown's end (abandon), and while
        it awaits an ``async def`` handler whose task was cancelled in SQL.
        """
        current = asyncio.current_task()
        if current is not None:
            self.running[current] = task
        counted = self._metrics.task_started(task.flow.slug, task.step_slug)
        try:
            await self._run(task, counted)
        finally:
            self._metrics.task_ended(counted)
            if current is not None:
                self.running.pop(current, None)

    async def _run(self, task: ClaimedTask, counted: StepMetrics) -> None:
        clock = self._clock
        started = clock.active_time()
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("task started", extra=fields(**task.log_fields()))
        payload: str | None = None
        error: str | None = None
        failure: BaseException | None = None  # the handler's exception, for its traceback
        handler_traceback: str | None = None  # sent with the report: handler errors only
        permanent = False  # no retry can cure it: PermanentError, output not JSON
        deadline: asyncio.Timeout | None = None
        is_sync = False
        timeout_seconds = 0
        try:
            step = task.flow.get_step(task.step_slug)
            is_sync = not (step.is_async or inspect.iscoroutinefunction(step.handler))
            ctx = self.context_for(task)
            timeout_seconds = ctx.timeout_seconds
            handler_started = clock.active_time()
            if not is_sync:  # cancelled with the handler if the task is cancelled in SQL
                task.cancellation.handler = asyncio.current_task()
            async with active_timeout(timeout_seconds, clock) as deadline:
                ctx = await self._with_signal(step, ctx)
                output = await self.invoke(step, handler_input(step, task.record), ctx)
            overran = clock.active_time() - handler_started - timeout_seconds
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
                try:
                    payload = encode_output(output)
                except TypeError as exc:
                    error, failure, permanent = error_text(exc), exc, True
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
                permanent = isinstance(exc, PermanentError)
                handler_traceback = failure_traceback(exc)
        task.cancellation.handler = None
        seconds = clock.active_time() - started
        if self._on_handler_done is not None:
            self._on_handler_done(task)
        if payload is not None:
            completed = await self._complete(task, payload, seconds, counted)
        else:
            completed = False
            await self._fail(
                task, error or "Error", seconds, counted, failure, permanent, handler_traceback
            )
        if self._on_reported is not None:
            self._on_reported(task, completed)

    async def _with_signal(self, step: Step, ctx: Context) -> Context:
        """``ctx`` with ``signal`` set when the step's handler runs after a signal wait."""
        if self._step_signals is None or not waits_for_signal(step):
            return ctx
        signal = await self._step_signals(ctx.run_id, ctx.step_slug)
        return dataclasses.replace(ctx, signal=signal)

    def _report_of(self, task: ClaimedTask, payload: str, permanent: bool = False) -> TaskReport:
        return TaskReport(
            task.run_id, task.step_slug, task.task_index, task.attempt, payload, permanent
        )

    async def _complete(
        self, task: ClaimedTask, payload: str, seconds: float, counted: StepMetrics
    ) -> bool:
        """Report an output; return whether this report completed the task.

        ``seconds`` is the handler time (counted with the outcome SQL answers).
        """
        try:
            result = await self._completions.report(self._report_of(task, payload))
        except psycopg.Error as exc:  # e.g. jsonb refuses \u0000: fail the task instead
            await self._fail(task, error_text(exc), seconds, counted)
            return False
        if result.outcome == "refused":  # over pgflow.max_payload_bytes: nothing was stored
            await self._fail(task, f"ProgramLimitExceeded: {result.detail}", seconds, counted)
            return False
        if result.outcome == "completed":
            self._metrics.task_completed(counted, seconds)
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "task completed",
                    extra=fields(
                        **task.log_fields(),
                        duration_ms=round(seconds * 1000, 1),
                        task_status=result.status,
                    ),
                )
            return True
        self._log_not_applied(task, result, seconds, counted)
        return False

    async def _fail(
        self,
        task: ClaimedTask,
        message: str,
        seconds: float,
        counted: StepMetrics,
        failure: BaseException | None = None,
        permanent: bool = False,
        handler_traceback: str | None = None,
    ) -> None:
        """Report a failure (with ``handler_traceback``, if any); log it once, with its traceback.

        WARNING when SQL retries the task (outcome ``retried``), ERROR when the attempt
        was its last (outcome ``failed``: attempts used up, or a permanent failure).
        """
        # PostgreSQL text cannot hold NUL: a message with one would be refused at every
        # attempt and the task left to the stalled-task requeue, again and again.
        message = message.replace("\x00", "\\x00")
        try:
            report = self._report_of(task, message, permanent)
            report = dataclasses.replace(report, traceback=handler_traceback)
            result = await self._failures.report(report)
        except psycopg.Error as exc:
            logger.error(
                "failure report refused; the task is left to requeue_stalled_tasks",
                extra=fields(**task.log_fields(), error=error_text(exc)),
            )
            return
        if result.outcome == "ignored":
            self._log_not_applied(task, result, seconds, counted, error=bounded(message))
            return
        retried = result.outcome == "retried"
        self._metrics.task_failed(counted, seconds, retried=retried)
        # The handler's traceback goes in the log (field "exc" in JSON); when its message is
        # huge, a bounded copy of the formatted traceback goes in field "traceback" instead.
        extra: dict[str, Any] = {}
        if failure is not None and len(message) > MAX_FIELD_CHARS:
            extra["traceback"] = bounded("".join(traceback.format_exception(failure)))
            failure = None
        logger.log(
            logging.WARNING if retried else logging.ERROR,
            "task failed",
            exc_info=failure,
            extra=fields(
                **task.log_fields(),
                duration_ms=round(seconds * 1000, 1),
                error=bounded(message),
                task_status=result.status,
                outcome=result.outcome,
                reason=result.reason,
                permanent=permanent,
                **extra,
            ),
        )

    def _log_not_applied(
        self,
        task: ClaimedTask,
        result: ReportResult,
        seconds: float,
        counted: StepMetrics,
        **extra: Any,
    ) -> None:
        """Count and log a report SQL did not apply as sent (late, fenced, cancelled, failed).

        An output SQL rejected (outcome ``failed``) is a failed attempt, logged at ERROR;
        an ignored report is counted as such.
        """
        if result.outcome == "failed":
            self._metrics.task_failed(counted, seconds, retried=False)
        else:
            self._metrics.task_ignored(counted)
        if result.outcome == "ignored" and (result.reason or "") in CANCELLED_REASONS:
            task.cancellation.discarded(task, result.reason or "")  # logged once per task
            return
        values = fields(
            **task.log_fields(),
            duration_ms=round(seconds * 1000, 1),
            task_status=result.status,
            outcome=result.outcome,
            reason=result.reason,
            detail=result.detail,
            **extra,
        )
        if result.reason == "stale_attempt":
            logger.warning("report ignored: a newer attempt of this task holds it", extra=values)
        elif result.outcome == "failed":
            logger.error("task failed: its output was rejected", extra=values)
        else:
            logger.info("report ignored: the task no longer waits for it", extra=values)

"""Drive one run of a flow inline: claim the due tasks, run their handlers, report, move time.

The loop of :func:`pgflow.testing.run_flow` (see :mod:`pgflow.testing.runner`): the
worker's own statements (:mod:`pgflow.worker.queries`) on one autocommit connection, one
task at a time.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Mapping
from typing import Any, Final, LiteralString

import psycopg
from psycopg import sql

from pgflow.context import Context, KnownFlowInput
from pgflow.dsl import Flow, Step
from pgflow.errors import PermanentError, RunStalled
from pgflow.testing.clock import ADVANCE
from pgflow.testing.results import FlowRun, load_run
from pgflow.worker import queries, startup
from pgflow.worker.db_errors import error_text
from pgflow.worker.executor import failure_traceback
from pgflow.worker.handler_call import encode_output, handler_input, invoke_handler
from pgflow.worker.step_signal import signal_from_row, waits_for_signal
from pgflow.worker.tick import DEFAULT_MAX_RUNS, TickResult

#: The deployment name of the worker rows run_flow registers.
FUNCTION_NAME: Final = "pgflow.testing"
#: Most tasks claimed per read (as a worker with ``--batch-size 100`` would).
_BATCH: Final = 100
#: Seconds added past a due time, so that the thing is due once the clock moved.
_PAST_DUE: Final = 0.001

#: The status of a run (no row: no such run).
RUN_STATUS: Final[LiteralString] = "select status from pgflow.runs where run_id = %(run_id)s::uuid"
#: Seconds until the next thing of this run is due on the engine's clock: a wait's
#: deadline (signal timeout, timer), the run's deadline.
_NEXT_RUN_DUE: Final[LiteralString] = (
    "select least("
    " (select extract(epoch from min(ws.deadline) - pgflow._now())::float8"
    "  from pgflow.wait_states as ws"
    "  where ws.run_id = %(run_id)s::uuid and ws.resolved_at is null),"
    " (select extract(epoch from r.deadline - pgflow._now())::float8 from pgflow.runs as r"
    "  where r.run_id = %(run_id)s::uuid and r.status in ('queued', 'started', 'paused')))"
)
#: Seconds until the next message of this run's queued tasks becomes visible (pgmq's
#: clock); messages held back by max_in_flight are left out (tick releases them when a slot
#: frees). Other runs' delays never move the clock.
_NEXT_MESSAGE_DUE = (
    "select extract(epoch from min(q.vt) - clock_timestamp())::float8 from pgmq.{} as q"
    " join pgflow.step_tasks as t on t.message_id = q.msg_id"
    " where t.run_id = %(run_id)s::uuid and t.status = 'queued'"
    " and not exists (select 1 from pgflow.throttled_messages as tm"
    "  where tm.message_id = q.msg_id)"
)
#: The farthest pgflow.advance_clock moves in one call (100 years, in seconds).
_MAX_MOVE: Final = 3_153_600_000.0


class RunDriver:
    """Claims, runs and reports the due tasks of one flow until the run stops moving.

    Args:
        conn: an autocommit connection to the database.
        flow: the flow (already compiled in the database).
        steps: the flow's steps by slug, overrides applied.
        run_id: the run to drive.
        move_clock: move the test clock to the next due time when nothing is due.
        max_handler_calls: raise :class:`~pgflow.errors.RunStalled` rather than make more
            handler calls (this run's, and those of other runs' due tasks run meanwhile).
    """

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any],
        flow: Flow,
        steps: dict[str, Step],
        run_id: str,
        move_clock: bool,
        max_handler_calls: int,
    ) -> None:
        self.conn = conn
        self.flow = flow
        self.steps = steps
        self.run_id = run_id
        self.move_clock = move_clock
        self.max_handler_calls = max_handler_calls
        self.worker_id = str(uuid.uuid4())
        self.calls = 0
        self.queue_table = ""  # pgmq's table of the flow queue, read at the start of drive()
        self.inputs: dict[str, Any] = {}
        self.shutdown = threading.Event()
        self.claimable = [slug for slug, step in steps.items() if step.handler is not None]
        self.lease = max((flow.effective_timeout(s) for s in self.claimable), default=60) + 2

    async def drive(self) -> FlowRun:
        """Drive the run until it ended or waits for what no clock move brings; return it.

        Registers a ``pgflow.workers`` row for the claims (deployment ``pgflow.testing``),
        marked stopped at the end.

        Raises:
            RunStalled: past ``max_handler_calls``, or 1,000 clock moves without a claim.
        """
        await startup.register_worker(
            self.conn, self.flow.slug, uuid.UUID(self.worker_id), FUNCTION_NAME
        )
        self.queue_table = str(
            await self._scalar("select pgmq.format_table_name(%(q)s, 'q')", {"q": self.flow.slug})
        )
        idle_moves = 0
        try:
            while await self._status() == "started":
                if await self._run_due_tasks():
                    idle_moves = 0
                    continue
                cur = await self.conn.execute(queries.TICK, {"max_runs": DEFAULT_MAX_RUNS})
                if TickResult.from_row(await cur.fetchone()).acted:
                    continue  # fired waits, expired the run, released tasks...
                due = await self._next_due()
                if due is None or not self.move_clock or due >= _MAX_MOVE:
                    break  # nothing due, or not within the 100 years one move may cover
                idle_moves += 1
                if idle_moves > 1_000:
                    raise RunStalled(
                        f"run {self.run_id}: 1,000 clock moves in a row made nothing claimable"
                    )
                await self.conn.execute(ADVANCE, {"seconds": max(due, 0.0) + _PAST_DUE})
        finally:
            await self.conn.execute(queries.MARK_WORKER_STOPPED, {"worker_id": self.worker_id})
        return await load_run(self.conn, self.run_id, self.calls)

    async def _status(self) -> str | None:
        value = await self._scalar(RUN_STATUS, {"run_id": self.run_id})
        return None if value is None else str(value)

    async def _scalar(
        self, query: LiteralString | sql.Composed, params: Mapping[str, Any] | None = None
    ) -> Any:
        cur = await self.conn.execute(query, params)
        row = await cur.fetchone()
        return None if row is None else row[0]

    def _visible_sql(self) -> sql.Composed:
        """Whether a message of the flow queue is visible now (a claim would take it)."""
        return sql.SQL(
            "select exists (select 1 from pgmq.{} as q where q.vt <= clock_timestamp())"
        ).format(sql.Identifier(self.queue_table))

    async def _next_due(self) -> float | None:
        """Seconds until the next task, wait or deadline of this run is due; None: nothing."""
        run_due = await self._scalar(_NEXT_RUN_DUE, {"run_id": self.run_id})
        message_due = await self._scalar(
            sql.SQL(_NEXT_MESSAGE_DUE).format(sql.Identifier(self.queue_table)),
            {"run_id": self.run_id},
        )
        dues = [d for d in (run_due, message_due) if d is not None]
        return min(dues) if dues else None

    async def _run_due_tasks(self) -> bool:
        """Claim the visible tasks of the flow, run and report each; True if any ran.

        Claims no more tasks than the calls left (so none is left claimed and never run);
        with none left, a visible message means the run would go on: RunStalled.
        """
        left = self.max_handler_calls - self.calls
        if left <= 0:
            if await self._scalar(self._visible_sql()):
                raise RunStalled(
                    f"run {self.run_id}: more than {self.max_handler_calls} handler calls "
                    "(max_handler_calls); a retry loop or a huge map?"
                )
            return False
        cur = await self.conn.execute(
            queries.READ_AND_START_TASKS,
            {
                "flow_slug": self.flow.slug,
                "worker_id": self.worker_id,
                "qty": min(_BATCH, left),
                "vt": self.lease,
                "step_slugs": self.claimable,
            },
        )
        columns = [c.name for c in cur.description or ()]
        rows = [dict(zip(columns, row, strict=True)) for row in await cur.fetchall()]
        claimed = [row for row in rows if row["run_id"] is not None]
        for record in claimed:
            self.calls += 1
            await self._run_task(record)
        return bool(claimed)

    async def _run_task(self, record: dict[str, Any]) -> None:
        step = self.steps[record["step_slug"]]
        ctx = await self._context(step, record)
        payload: str | None = None
        error: str | None = None
        traceback: str | None = None
        permanent = False  # no retry can cure it: PermanentError, an output that is not JSON
        timeout = ctx.timeout_seconds
        interrupted: KeyboardInterrupt | None = None
        try:
            async with asyncio.timeout(timeout) as deadline:
                output = await invoke_handler(step, handler_input(step, record), ctx)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # run_flow itself is being cancelled: leave the task to the sweep
            error = "CancelledError: the handler raised asyncio.CancelledError"
        except BaseException as exc:  # every handler error fails its task, as on a worker
            if isinstance(exc, TimeoutError) and deadline.expired():
                error = f"TimeoutError: handler exceeded the step timeout of {timeout} s"
            else:
                error, traceback = error_text(exc), failure_traceback(exc)
                permanent = isinstance(exc, PermanentError)
                if isinstance(exc, KeyboardInterrupt):
                    interrupted = exc  # reported as a failure, then the test stops
        else:
            try:
                payload = encode_output(output)
            except TypeError as exc:
                error, permanent = error_text(exc), True
        key = {
            "run_id": record["run_id"],
            "step_slug": record["step_slug"],
            "task_index": record["task_index"],
            "attempt": record["attempts_count"],
        }
        if payload is not None:
            try:
                cur = await self.conn.execute(
                    queries.COMPLETE_TASKS_ONE_REPORT, {**key, "payload": payload}
                )
                row = await cur.fetchone()
            except psycopg.Error as exc:  # e.g. jsonb refuses \u0000: fail the task instead
                error = error_text(exc)
            else:
                if row is None or row[1] != "refused":
                    return
                error = f"ProgramLimitExceeded: {row[3]}"  # over pgflow.max_payload_bytes
        await self.conn.execute(
            queries.FAIL_TASKS_ONE_REPORT,
            {
                **key,
                "payload": (error or "Error").replace("\x00", "\\x00"),
                "permanent": permanent,
                "traceback": traceback,
            },
        )
        if interrupted is not None:
            raise interrupted

    async def _context(self, step: Step, record: dict[str, Any]) -> Context:
        run_id = str(record["run_id"])
        if run_id not in self.inputs:
            if step.step_type == "single" and step.is_root and record["flow_input"] is not None:
                self.inputs[run_id] = record["flow_input"]
            else:
                self.inputs[run_id] = await self._scalar(queries.RUN_INPUT, {"run_id": run_id})
        signal = None
        if waits_for_signal(step):
            cur = await self.conn.execute(
                queries.GET_STEP_SIGNAL, {"run_id": run_id, "step_slug": step.slug}
            )
            signal = signal_from_row(await cur.fetchone())
        message = {
            k: record[k] for k in ("msg_id", "read_ct", "enqueued_at", "vt", "message", "headers")
        }
        step_task = {k: record[k] for k in ("step_slug", "input", "task_index", "flow_input")} | {
            "flow_slug": self.flow.slug,
            "run_id": run_id,
            "msg_id": record["msg_id"],
        }
        return Context(
            flow_slug=self.flow.slug,
            run_id=run_id,
            step_slug=step.slug,
            task_index=int(record["task_index"]),
            attempt=int(record["attempts_count"]),
            worker_id=self.worker_id,
            raw_message=message,
            step_task=step_task,
            shutdown=self.shutdown,
            timeout_seconds=int(self.flow.effective_timeout(step.slug)),
            flow_input_source=KnownFlowInput(self.inputs[run_id]),
            signal=signal,
        )

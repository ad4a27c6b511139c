"""An Executor without a database, for the worker's unit tests: a fake connection pool that
records every statement (reports in their batch form) and answers as the SQL does, a
claimed task of any flow, and ``run_task`` to run one task and keep what it sent.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from contextlib import asynccontextmanager
from typing import Any

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.executor import ClaimedTask, Executor
from pgflow.worker.reports import ReportBatcher
from pgflow.worker.suspension import SuspensionClock

RUN_ID = str(uuid.uuid4())
WORKER_ID = str(uuid.uuid4())


class FakeCursor:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows


#: What the fake database answers for each report: (status, outcome, reason, detail).
COMPLETED = ("completed", "completed", None, None)
RETRIED = ("queued", "retried", None, None)


#: The one-report statements, and the batch statement each stands for.
ONE_REPORT = {
    queries.COMPLETE_TASKS_ONE_REPORT: queries.COMPLETE_TASKS,
    queries.FAIL_TASKS_ONE_REPORT: queries.FAIL_TASKS,
}
#: Parameter of a one-report statement -> the batch statement's array parameter.
ONE_REPORT_PARAMS = {
    "run_id": "run_ids",
    "step_slug": "step_slugs",
    "task_index": "task_indexes",
    "payload": "payloads",
    "attempt": "attempts",
    "permanent": "permanents",
    "traceback": "tracebacks",
}


def as_batch_call(query: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A one-report call as the batch call it stands for (arrays of one), else unchanged.

    Only failures carry ``permanent`` and ``traceback`` (completions never do)."""
    if query not in ONE_REPORT:
        return query, params
    expected = set(ONE_REPORT_PARAMS)
    if query != queries.FAIL_TASKS_ONE_REPORT:
        expected -= {"permanent", "traceback"}
    assert set(params) == expected
    return ONE_REPORT[query], {ONE_REPORT_PARAMS[k]: [v] for k, v in params.items()}


class FakeConnection:
    def __init__(self, pool: FakePool) -> None:
        self._pool = pool

    async def execute(self, query: str, params: dict[str, Any] | None = None) -> FakeCursor:
        if self._pool.failures:
            raise self._pool.failures.pop(0)
        # Recorded in the batch form, whichever of the two forms was sent.
        query, params = as_batch_call(query, dict(params or {}))
        self._pool.sent.append((query, params))
        if query == queries.FAIL_TASKS:
            answer = RETRIED
        elif self._pool.answers:
            answer = self._pool.answers.pop(0)
        else:
            answer = COMPLETED
        return FakeCursor([answer] * len(params.get("run_ids", [None])))


class FakePool:
    """Records every statement (reports in their batch form); raises the queued ``failures``
    first; answers each complete_tasks item with the queued ``answers``, then COMPLETED."""

    def __init__(
        self,
        failures: list[Exception] | None = None,
        answers: list[tuple[Any, ...]] | None = None,
    ) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.failures = list(failures or [])
        self.answers = list(answers or [])

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        yield FakeConnection(self)


class RecordingPool:
    """Records every statement as sent and holds each call at ``gate`` until it is set;
    answers RETRIED for each report."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.gate = asyncio.Event()

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        yield self

    async def execute(self, query: str, params: dict[str, Any]) -> FakeCursor:
        self.sent.append((query, dict(params)))
        await self.gate.wait()
        count = len(params["run_ids"]) if "run_ids" in params else 1
        return FakeCursor([RETRIED] * count)


def only_report(pool: FakePool, index: int = 0) -> tuple[str, dict[str, Any]]:
    """The statement of the index-th call and its one report, as scalars."""
    query, params = pool.sent[index]
    assert len(params["run_ids"]) == 1
    return query, {key: value[0] for key, value in params.items()}


def make_executor(pool: FakePool, **kwargs: Any) -> Executor:
    """An Executor reporting through ReportBatchers on the fake pool."""

    def batcher(statement: Any, one_report_statement: Any, name: str) -> ReportBatcher:
        return ReportBatcher(
            pool,  # type: ignore[arg-type]
            statement=statement,
            one_report_statement=one_report_statement,
            name=name,
            max_batch=10,
            reconnect_max_seconds=0.01,
            permanent=name == "fail_tasks",  # as the worker on pgflow-py's SQL
        )

    return Executor(
        flow_inputs=lambda run_id: NoFlowInput(),
        shutdown=threading.Event(),
        completions=batcher(
            queries.COMPLETE_TASKS, queries.COMPLETE_TASKS_ONE_REPORT, "complete_tasks"
        ),
        failures=batcher(queries.FAIL_TASKS, queries.FAIL_TASKS_ONE_REPORT, "fail_tasks"),
        clock=SuspensionClock(),
        **kwargs,
    )


class NoFlowInput:
    async def get(self) -> Any:
        raise AssertionError("flow input not expected")

    def get_blocking(self) -> Any:
        raise AssertionError("flow input not expected")


def make_flow() -> Flow:
    flow = Flow("unit_flow", timeout=10)

    @flow.step()
    def root(input, ctx):
        return {"got": input, "attempt": ctx.attempt, "flow_input": ctx.flow_input}

    @flow.step(depends_on=["root"], timeout=5)
    async def child(input):
        return input

    @flow.map(array="root")
    def each(item):
        return item

    @flow.step(depends_on=["root"])
    def falsy(input):
        return input["value"]

    @flow.step(depends_on=["root"], timeout=3)
    async def slow(input):
        await asyncio.sleep(30)

    @flow.step(depends_on=["root"])
    def raises(input):
        raise KeyError("missing")

    @flow.step(depends_on=["root"])
    def closes(input):
        raise GeneratorExit("closed")

    return flow


def claimed(flow: Flow, step_slug: str, input: Any, flow_input: Any = None) -> ClaimedTask:
    return ClaimedTask(
        flow=flow,
        worker_id=WORKER_ID,
        record={
            "flow_slug": flow.slug,
            "run_id": uuid.UUID(RUN_ID),
            "step_slug": step_slug,
            "input": input,
            "msg_id": 7,
            "task_index": 0,
            "flow_input": flow_input,
        },
        message={"msg_id": 7, "read_ct": 1, "message": {}, "headers": None},
        attempt=2,
    )


def run_task(task: ClaimedTask, pool: FakePool | None = None) -> FakePool:
    pool = pool or FakePool()
    reported: list[tuple[str, bool]] = []

    async def main() -> None:
        executor = make_executor(pool, on_reported=lambda t, ok: reported.append((t.step_slug, ok)))
        await executor.run(task)

    asyncio.run(main())
    assert [slug for slug, _ in reported] == [task.step_slug]
    return pool

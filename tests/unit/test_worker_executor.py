"""Executor without a database: handler input, calling conventions, output encoding,
error texts, timeouts, report outcomes and report retries, against a fake connection pool.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import uuid
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest

import pgflow.worker.executor as executor_module
from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.executor import ClaimedTask, Executor, error_text
from pgflow.worker.handler_call import encode_output, handler_input
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


def test_handler_input_root_single_gets_the_run_input():
    flow = make_flow()
    record = {"input": {}, "flow_input": {"a": 1}}
    assert handler_input(flow.get_step("root"), record) == {"a": 1}


def test_handler_input_dependent_and_map_get_the_sql_input():
    flow = make_flow()
    assert handler_input(flow.get_step("child"), {"input": {"root": 1}, "flow_input": None}) == {
        "root": 1
    }
    assert handler_input(flow.get_step("each"), {"input": 0, "flow_input": None}) == 0


def test_error_text_is_type_name_and_message():
    assert error_text(ValueError("bad value")) == "ValueError: bad value"
    assert error_text(KeyError("k")) == "KeyError: 'k'"
    assert error_text(RuntimeError()) == "RuntimeError: "


@pytest.mark.parametrize("value", [0, False, "", {}, [], None, 0.0])
def test_falsy_outputs_and_none_encode_as_themselves(value):
    assert json.loads(encode_output(value)) == value
    assert encode_output(None) == "null"


@pytest.mark.parametrize("value", [{1, 2}, object(), float("nan"), float("inf"), b"bytes"])
def test_non_json_outputs_raise_a_clear_type_error(value):
    with pytest.raises(TypeError, match="handler output is not JSON-serialisable"):
        encode_output(value)


def test_root_step_gets_run_input_and_context_and_completes():
    flow = make_flow()
    pool = run_task(claimed(flow, "root", {}, flow_input={"x": 1}))
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.COMPLETE_TASKS
    assert json.loads(report["payloads"]) == {"got": {"x": 1}, "attempt": 2, "flow_input": {"x": 1}}
    assert report["run_ids"] == RUN_ID
    assert report["task_indexes"] == 0
    assert report["attempts"] == 2  # the claim's attempt fences the report


def test_async_handler_without_context():
    flow = make_flow()
    pool = run_task(claimed(flow, "child", {"root": [1, 2]}))
    assert json.loads(only_report(pool)[1]["payloads"]) == {"root": [1, 2]}


@pytest.mark.parametrize("value", [0, False, "", {}, [], None])
def test_falsy_result_is_completed_not_nulled(value):
    flow = make_flow()
    pool = run_task(claimed(flow, "falsy", {"root": 1, "value": value}))
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.COMPLETE_TASKS
    assert report["payloads"] == json.dumps(value)


def test_handler_exception_reports_fail_task_with_type_and_message():
    flow = make_flow()
    pool = run_task(claimed(flow, "raises", {"root": 1}))
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"] == "KeyError: 'missing'"
    assert report["attempts"] == 2


def test_a_sync_handler_raising_generator_exit_fails_its_task():
    # Raised in the handler's thread: it reaches the executor as the handler's error, and
    # does not close the executor's coroutine on its way (the report is still sent).
    pool = run_task(claimed(make_flow(), "closes", {"root": 1}))
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"] == "GeneratorExit: closed"


def test_non_json_result_reports_a_type_error():
    flow = make_flow()
    pool = run_task(claimed(flow, "falsy", {"root": 1, "value": {1}}))
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"].startswith("TypeError: handler output is not JSON-serialisable (set)")


def test_timeout_uses_the_step_timeout_and_fails_the_task(monkeypatch):
    flow = make_flow()
    assert flow.effective_timeout("slow") == 3
    assert flow.effective_timeout("child") == 5
    assert flow.effective_timeout("root") == 10  # the flow's
    seen: list[float] = []
    real_timeout = executor_module.active_timeout

    def fast_timeout(delay: float, clock: SuspensionClock):
        seen.append(delay)
        return real_timeout(0.05, clock)

    monkeypatch.setattr(executor_module, "active_timeout", fast_timeout)
    pool = run_task(claimed(flow, "slow", {"root": 1}))
    assert seen == [3]
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"] == "TimeoutError: handler exceeded the step timeout of 3 s"


def test_handler_raising_timeout_error_itself_is_not_a_step_timeout():
    flow = Flow("own_timeout")

    @flow.step()
    def call(input):
        raise TimeoutError("socket timed out")

    pool = run_task(claimed(flow, "call", {}, flow_input={}))
    assert only_report(pool)[1]["payloads"] == "TimeoutError: socket timed out"


def test_default_timeout_is_60_seconds():
    flow = Flow("defaults")

    @flow.step()
    def only(input):
        return 1

    assert flow.effective_timeout("only") == 60


def test_report_is_retried_while_the_database_is_unreachable():
    flow = make_flow()
    pool = FakePool(failures=[psycopg.OperationalError("down"), psycopg.OperationalError("down")])
    run_task(claimed(flow, "child", {"root": 1}), pool)
    assert len(pool.sent) == 1
    assert only_report(pool)[0] == queries.COMPLETE_TASKS


def test_output_the_server_rejects_fails_the_task():
    flow = make_flow()
    pool = FakePool(failures=[psycopg.errors.UntranslatableCharacter("\\u0000")])
    run_task(claimed(flow, "child", {"root": "a"}), pool)
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"].startswith("UntranslatableCharacter: ")


def test_output_refused_for_its_size_fails_the_task_with_the_sql_detail():
    flow = make_flow()
    detail = "Output of task child[0] of run x is 2012 bytes, over the limit of 1024 bytes"
    pool = FakePool(answers=[("started", "refused", "payload_too_large", detail)])
    run_task(claimed(flow, "child", {"root": "a"}), pool)
    assert [query for query, _ in pool.sent] == [queries.COMPLETE_TASKS, queries.FAIL_TASKS]
    assert only_report(pool, 1)[1]["payloads"] == f"ProgramLimitExceeded: {detail}"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (("started", "ignored", "stale_attempt", None), "report ignored: a newer attempt"),
        (("completed", "ignored", "task_not_started", None), "report ignored: the task no longer"),
        (("failed", "failed", "type_violation", "[TYPE_VIOLATION] ..."), "task failed: its output"),
    ],
)
def test_a_report_sql_does_not_apply_is_logged_not_retried(answer, message, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    flow = make_flow()
    pool = FakePool(answers=[answer])
    reported: list[bool] = []

    async def main() -> None:
        executor = make_executor(pool, on_reported=lambda t, ok: reported.append(ok))
        await executor.run(claimed(flow, "child", {"root": "a"}))

    asyncio.run(main())
    assert [query for query, _ in pool.sent] == [queries.COMPLETE_TASKS]  # nothing more sent
    assert reported == [False]
    (record,) = [r for r in caplog.records if r.getMessage().startswith(message)]
    assert record.fields["reason"] == answer[2]  # type: ignore[attr-defined]


def test_a_failure_message_with_a_nul_byte_is_reported_with_it_escaped():
    # PostgreSQL text cannot hold NUL: unescaped, the report would be refused every time.
    flow = Flow("nul_errors")

    @flow.step()
    def boom(input):
        raise ValueError("bad byte \x00 here")

    pool = run_task(claimed(flow, "boom", {}))
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"] == "ValueError: bad byte \\x00 here"
    assert "\x00" not in report["payloads"]


def test_a_huge_failure_message_is_logged_bounded(caplog):
    caplog.set_level(logging.WARNING, logger="pgflow.worker")
    flow = Flow("huge_errors")

    @flow.step()
    def boom(input):
        raise ValueError("head " + "x" * 100_000 + " tail")

    run_task(claimed(flow, "boom", {}))
    (record,) = [r for r in caplog.records if r.getMessage() == "task failed"]
    logged = record.fields  # type: ignore[attr-defined]
    assert len(logged["error"]) < 17_000
    assert logged["error"].startswith("ValueError: head") and logged["error"].endswith(" tail")
    assert record.exc_info is None and len(logged["traceback"]) < 17_000
    assert "boom" in logged["traceback"]  # the handler's frame is kept

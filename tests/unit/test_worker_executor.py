"""Executor without a database: handler input, calling conventions, output encoding,
error texts, timeouts and report retries, against a fake connection pool.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.executor import (
    ClaimedTask,
    Executor,
    encode_output,
    error_text,
    handler_input,
)

RUN_ID = str(uuid.uuid4())
WORKER_ID = str(uuid.uuid4())


class FakeCursor:
    def __init__(self, row: tuple[Any, ...] | None) -> None:
        self._row = row

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self._row


class FakeConnection:
    def __init__(self, pool: FakePool) -> None:
        self._pool = pool

    async def execute(self, query: str, params: dict[str, Any] | None = None) -> FakeCursor:
        if self._pool.failures:
            raise self._pool.failures.pop(0)
        self._pool.sent.append((query, dict(params or {})))
        return FakeCursor(("completed",))


class FakePool:
    """Records every statement; raises the queued ``failures`` first."""

    def __init__(self, failures: list[Exception] | None = None) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.failures = list(failures or [])

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        yield FakeConnection(self)


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
        executor = Executor(
            pool=pool,  # type: ignore[arg-type]
            flow_inputs=lambda run_id: NoFlowInput(),
            shutdown=threading.Event(),
            reconnect_max_seconds=0.01,
            on_reported=lambda t, ok: reported.append((t.step_slug, ok)),
        )
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
    ((query, params),) = pool.sent
    assert query == queries.COMPLETE_TASK
    assert json.loads(params["output"]) == {"got": {"x": 1}, "attempt": 2, "flow_input": {"x": 1}}
    assert params["run_id"] == RUN_ID
    assert params["task_index"] == 0


def test_async_handler_without_context():
    flow = make_flow()
    pool = run_task(claimed(flow, "child", {"root": [1, 2]}))
    assert json.loads(pool.sent[0][1]["output"]) == {"root": [1, 2]}


@pytest.mark.parametrize("value", [0, False, "", {}, [], None])
def test_falsy_result_is_completed_not_nulled(value):
    flow = make_flow()
    pool = run_task(claimed(flow, "falsy", {"root": 1, "value": value}))
    ((query, params),) = pool.sent
    assert query == queries.COMPLETE_TASK
    assert params["output"] == json.dumps(value)


def test_handler_exception_reports_fail_task_with_type_and_message():
    flow = make_flow()
    pool = run_task(claimed(flow, "raises", {"root": 1}))
    ((query, params),) = pool.sent
    assert query == queries.FAIL_TASK
    assert params["error_message"] == "KeyError: 'missing'"


def test_non_json_result_reports_a_type_error():
    flow = make_flow()
    pool = run_task(claimed(flow, "falsy", {"root": 1, "value": {1}}))
    ((query, params),) = pool.sent
    assert query == queries.FAIL_TASK
    assert params["error_message"].startswith(
        "TypeError: handler output is not JSON-serialisable (set)"
    )


def test_timeout_uses_the_step_timeout_and_fails_the_task(monkeypatch):
    flow = make_flow()
    assert flow.effective_timeout("slow") == 3
    assert flow.effective_timeout("child") == 5
    assert flow.effective_timeout("root") == 10  # the flow's
    seen: list[float] = []
    real_timeout = asyncio.timeout

    def fast_timeout(delay: float):
        seen.append(delay)
        return real_timeout(0.05)

    monkeypatch.setattr(asyncio, "timeout", fast_timeout)
    pool = run_task(claimed(flow, "slow", {"root": 1}))
    assert seen == [3]
    ((query, params),) = pool.sent
    assert query == queries.FAIL_TASK
    assert params["error_message"] == "TimeoutError: handler exceeded the step timeout of 3 s"


def test_handler_raising_timeout_error_itself_is_not_a_step_timeout():
    flow = Flow("own_timeout")

    @flow.step()
    def call(input):
        raise TimeoutError("socket timed out")

    pool = run_task(claimed(flow, "call", {}, flow_input={}))
    assert pool.sent[0][1]["error_message"] == "TimeoutError: socket timed out"


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
    ((query, _),) = pool.sent
    assert query == queries.COMPLETE_TASK


def test_complete_task_rejected_by_sql_becomes_fail_task():
    flow = make_flow()
    pool = FakePool(failures=[psycopg.errors.UntranslatableCharacter("\\u0000")])
    run_task(claimed(flow, "child", {"root": "a"}), pool)
    ((query, params),) = pool.sent
    assert query == queries.FAIL_TASK
    assert params["error_message"].startswith("UntranslatableCharacter: ")


def test_output_over_the_size_limit_fails_the_task_without_retrying_the_report():
    # ProgramLimitExceeded is an OperationalError, yet retrying the same report cannot help.
    flow = make_flow()
    pool = FakePool(failures=[psycopg.errors.ProgramLimitExceeded("Output of task child[0] ...")])
    run_task(claimed(flow, "child", {"root": "a"}), pool)
    ((query, params),) = pool.sent
    assert query == queries.FAIL_TASK
    assert params["error_message"] == "ProgramLimitExceeded: Output of task child[0] ..."

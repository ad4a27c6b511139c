"""Executor without a database: handler input, calling conventions, output encoding,
error texts and timeouts, against a fake connection pool (executor_fakes.py). Reports:
test_worker_executor_reports.py.
"""

from __future__ import annotations

import json

import pytest

import pgflow.worker.executor as executor_module
from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.executor import error_text
from pgflow.worker.handler_call import encode_output, handler_input
from pgflow.worker.suspension import SuspensionClock
from tests.unit.executor_fakes import RUN_ID, claimed, make_flow, only_report, run_task


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

"""The handler's traceback in failure reports (pgflow.worker.executor, pgflow.worker.reports):
sent for an exception the handler raised, never for a timeout, an output that is not JSON or
an output SQL refused, and only by the statements of pgflow-py's SQL.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import pgflow.worker.executor as executor_module
from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.executor import failure_traceback
from pgflow.worker.modes import UPSTREAM
from pgflow.worker.reports import ReportBatcher, TaskReport
from tests.unit.executor_fakes import FakePool, RecordingPool, claimed, only_report, run_task


def charge_card(amount: int) -> None:
    raise ValueError(f"card declined for {amount}")


def failing_flow() -> Flow:
    flow = Flow("tracebacks", timeout=10)

    @flow.step()
    def charge(input):
        try:
            charge_card(5)
        except ValueError as exc:
            raise RuntimeError("payment failed") from exc

    @flow.step()
    async def charge_async(input):
        charge_card(7)

    @flow.step()
    def not_json(input):
        return {1, 2}

    @flow.step()
    async def slow(input):
        await asyncio.sleep(30)

    @flow.step()
    def nul(input):
        raise ValueError("bad \x00 byte")

    @flow.step()
    def huge(input):
        raise ValueError("head " + "x" * 100_000 + " tail")

    return flow


def failure_of(step_slug: str) -> dict[str, Any]:
    """The one fail_tasks report of a run of ``step_slug``, as scalars."""
    pool = run_task(claimed(failing_flow(), step_slug, {}, flow_input={}))
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    return report


def test_a_handler_exception_sends_its_traceback_with_the_short_error():
    report = failure_of("charge")
    assert report["payloads"] == "RuntimeError: payment failed"  # the error text as before
    traceback = report["tracebacks"]
    assert traceback.startswith("Traceback (most recent call last):")
    # the handler's frame, the frame it called, and the cause chain
    assert ", in charge\n" in traceback and ", in charge_card\n" in traceback
    assert "ValueError: card declined for 5" in traceback
    assert "The above exception was the direct cause" in traceback
    assert traceback.rstrip().endswith("RuntimeError: payment failed")


def test_an_async_handler_exception_sends_its_traceback():
    traceback = failure_of("charge_async")["tracebacks"]
    assert ", in charge_async\n" in traceback and "ValueError: card declined for 7" in traceback


def test_an_output_that_is_not_json_sends_no_traceback():
    report = failure_of("not_json")
    assert report["payloads"].startswith("TypeError: handler output is not JSON-serialisable")
    assert report["tracebacks"] is None


def test_a_timeout_sends_no_traceback(monkeypatch):
    real_timeout = executor_module.active_timeout
    monkeypatch.setattr(
        executor_module,
        "active_timeout",
        lambda delay, clock: real_timeout(0.05, clock),
    )
    report = failure_of("slow")
    assert report["payloads"] == "TimeoutError: handler exceeded the step timeout of 10 s"
    assert report["tracebacks"] is None


def test_an_output_sql_refused_is_failed_without_a_traceback():
    flow = Flow("refused")

    @flow.step()
    def big(input):
        return "x"

    detail = "Output of task big[0] is 2012 bytes, over the limit of 1024 bytes"
    pool = FakePool(answers=[("started", "refused", "payload_too_large", detail)])
    run_task(claimed(flow, "big", {}, flow_input={}), pool)
    assert [query for query, _ in pool.sent] == [queries.COMPLETE_TASKS, queries.FAIL_TASKS]
    assert only_report(pool, 1)[1]["tracebacks"] is None


def test_a_nul_in_the_traceback_is_escaped():
    traceback = failure_of("nul")["tracebacks"]
    assert "\x00" not in traceback and "ValueError: bad \\x00 byte" in traceback


def test_a_huge_traceback_is_sent_bounded_under_what_sql_keeps():
    traceback = failure_of("huge")["tracebacks"]
    assert len(traceback) <= 16384  # SQL stores it as sent, not cut a second time
    assert traceback.startswith("Traceback (most recent call last):")
    assert ", in huge\n" in traceback  # the head keeps the handler's frame
    assert traceback.rstrip().endswith(" tail")
    assert "characters cut ...]" in traceback


def test_failure_traceback_of_a_short_exception_is_format_exception_whole():
    try:
        charge_card(1)
    except ValueError as exc:
        text = failure_traceback(exc)
    assert text.startswith("Traceback (most recent call last):")
    assert text.endswith("ValueError: card declined for 1\n")
    assert "characters cut" not in text


@pytest.mark.parametrize("pgflow_py", [True, False])
def test_a_batcher_sends_tracebacks_only_on_pgflow_pys_sql(pgflow_py):
    # pgflow-py: the lone report as a scalar, a group as an array; a group none of whose
    # reports has one sends NULL. Upstream mode: fail_task takes no traceback.
    async def scenario() -> RecordingPool:
        pool = RecordingPool()
        batcher = ReportBatcher(
            pool,  # type: ignore[arg-type]
            statement=queries.FAIL_TASKS if pgflow_py else UPSTREAM.fail_batch,
            one_report_statement=queries.FAIL_TASKS_ONE_REPORT if pgflow_py else UPSTREAM.fail_one,
            name="fail_tasks",
            max_batch=2,
            reconnect_max_seconds=0.01,
            permanent=pgflow_py,
        )

        def report(index: int, traceback: str | None) -> TaskReport:
            return TaskReport("r", "s", index, 1, "E: e", traceback=traceback)

        first = asyncio.ensure_future(batcher.report(report(0, "tb 0")))
        await asyncio.sleep(0)  # the lone first report is on its way, held at the gate
        rest = [
            asyncio.ensure_future(batcher.report(report(i, tb)))
            for i, tb in ((1, None), (2, "tb 2"), (3, None), (4, None))
        ]
        await asyncio.sleep(0)
        pool.gate.set()
        await asyncio.wait_for(asyncio.gather(first, *rest), 5)
        return pool

    pool = asyncio.run(scenario())
    (_, one), (_, group), (_, without) = pool.sent
    if pgflow_py:
        assert one["traceback"] == "tb 0"
        assert group["tracebacks"] == [None, "tb 2"]
        assert without["tracebacks"] is None
        assert without["payloads"] == ["E: e", "E: e"]  # the error texts still go
    else:
        assert all("traceback" not in p and "tracebacks" not in p for p in (one, group, without))
    assert "traceback" not in UPSTREAM.fail_one


def test_the_fail_statements_pass_tracebacks_and_completions_do_not():
    assert "tracebacks => %(tracebacks)s::text[]" in queries.FAIL_TASKS
    assert "tracebacks => array[%(traceback)s::text]" in queries.FAIL_TASKS_ONE_REPORT
    assert "traceback" not in queries.COMPLETE_TASKS + queries.COMPLETE_TASKS_ONE_REPORT
    assert "pgflow.fail_tasks(uuid[],text[],integer[],text[],integer[],boolean[],text[])" in (
        queries.WORKER_FUNCTIONS
    )

"""The worker's Prometheus metrics without a database: what the executor counts for each
answer SQL gives to a report (completed, retried, failed for good, output rejected,
ignored), tasks in flight, and report calls observed with their size. With a real worker
process: tests/integration/test_worker_metrics.py.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.metrics import WorkerMetrics
from pgflow.worker.reports import ReportBatcher, TaskReport
from tests.unit.executor_fakes import claimed
from tests.unit.metrics_fakes import (
    COMPLETED,
    EXHAUSTED,
    REJECTED,
    RETRIED,
    STALE,
    ScriptedReports,
    executor_on,
    value,
)


def outcome_flow() -> Flow:
    flow = Flow("metered", timeout=10)

    @flow.step()
    def works(input):
        return {"ok": True}

    @flow.step()
    def breaks(input):
        raise RuntimeError("broken")

    return flow


def run_tasks(
    flow: Flow, steps: list[str], complete: list[tuple[Any, ...]], fail: list[tuple[Any, ...]]
) -> WorkerMetrics:
    """Run one task of each step, one after the other; SQL answers from the scripts."""
    metrics = WorkerMetrics()
    pool = ScriptedReports(complete, fail)

    async def main() -> None:
        executor = executor_on(pool, metrics)
        for step in steps:
            await executor.run(claimed(flow, step, {}))

    asyncio.run(main())
    assert pool.answers == {queries.COMPLETE_TASKS: [], queries.FAIL_TASKS: []}
    return metrics


def test_each_answer_sql_gives_is_counted_as_what_it_is():
    flow = outcome_flow()
    steps = ["works", "breaks", "breaks", "works", "works"]
    metrics = run_tasks(flow, steps, [COMPLETED, STALE, REJECTED], [RETRIED, EXHAUSTED])

    def count(name: str, step: str) -> float:
        return value(metrics, f"pgflow_worker_{name}_total", flow="metered", step=step)

    assert [count("tasks_started", s) for s in ("works", "breaks")] == [3, 2]
    assert [count("tasks_completed", s) for s in ("works", "breaks")] == [1, 0]
    # breaks: one retried, one exhausted; works: its output rejected (failed, not retried)
    assert [count("tasks_failed", s) for s in ("works", "breaks")] == [1, 2]
    assert [count("tasks_retried", s) for s in ("works", "breaks")] == [0, 1]
    assert [count("tasks_ignored", s) for s in ("works", "breaks")] == [1, 0]
    durations = {
        (step, outcome): value(
            metrics,
            "pgflow_worker_task_duration_seconds_count",
            flow="metered",
            step=step,
            outcome=outcome,
        )
        for step in ("works", "breaks")
        for outcome in ("completed", "failed")
    }
    assert durations == {
        ("works", "completed"): 1,
        ("works", "failed"): 1,
        ("breaks", "completed"): 0,
        ("breaks", "failed"): 2,
    }
    assert value(metrics, "pgflow_worker_tasks_in_flight", flow="metered") == 0
    totals = metrics.totals
    assert (totals.started, totals.completed, totals.failed, totals.retried) == (5, 1, 3, 1)
    assert (totals.ignored, totals.in_flight) == (1, 0)
    # One report per call (the tasks ran one after the other): calls and reports agree.
    for function, calls in (("complete_tasks", 3), ("fail_tasks", 2)):
        size = {"function": function}
        assert value(metrics, "pgflow_worker_report_batch_size_count", **size) == calls
        assert value(metrics, "pgflow_worker_report_batch_size_sum", **size) == calls
        assert value(metrics, "pgflow_worker_report_duration_seconds_count", **size) == calls


def test_a_refused_output_is_counted_once_as_the_failure_reported_instead():
    flow = outcome_flow()
    refused = ("started", "refused", "payload_too_large", "over the limit")
    metrics = run_tasks(flow, ["works"], [refused], [RETRIED])
    labels = {"flow": "metered", "step": "works"}
    assert value(metrics, "pgflow_worker_tasks_failed_total", **labels) == 1
    assert value(metrics, "pgflow_worker_tasks_retried_total", **labels) == 1
    assert value(metrics, "pgflow_worker_tasks_ignored_total", **labels) == 0
    assert value(metrics, "pgflow_worker_tasks_completed_total", **labels) == 0


def test_in_flight_counts_a_task_until_its_report_returns():
    flow = Flow("held", timeout=10)
    release = asyncio.Event()

    @flow.step()
    async def waits(input):
        await release.wait()
        return 1

    metrics = WorkerMetrics()
    pool = ScriptedReports([COMPLETED, COMPLETED], [])

    async def main() -> list[float]:
        executor = executor_on(pool, metrics)
        runners = [asyncio.create_task(executor.run(claimed(flow, "waits", {}))) for _ in range(2)]
        await asyncio.sleep(0.05)
        seen = [value(metrics, "pgflow_worker_tasks_in_flight", flow="held")]
        release.set()
        await asyncio.gather(*runners)
        seen.append(value(metrics, "pgflow_worker_tasks_in_flight", flow="held"))
        return seen

    assert asyncio.run(main()) == [2, 0]
    assert metrics.totals.in_flight == 0


def test_an_abandoned_task_leaves_in_flight_and_is_in_no_outcome():
    flow = Flow("abandoned", timeout=10)

    @flow.step()
    async def never(input):
        await asyncio.Event().wait()

    metrics = WorkerMetrics()

    async def main() -> None:
        executor = executor_on(ScriptedReports([], []), metrics)
        runner = asyncio.create_task(executor.run(claimed(flow, "never", {})))
        await asyncio.sleep(0.05)
        runner.cancel()  # the end of a shutdown's grace
        await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(main())
    totals = metrics.totals
    assert (totals.started, totals.in_flight) == (1, 0)
    assert (totals.completed, totals.failed, totals.ignored) == (0, 0, 0)


def test_grouped_reports_are_observed_once_per_call_with_their_size():
    metrics = WorkerMetrics()
    pool = ScriptedReports([COMPLETED] * 5, [])
    batcher = ReportBatcher(
        pool,  # type: ignore[arg-type]
        statement=queries.COMPLETE_TASKS,
        one_report_statement=queries.COMPLETE_TASKS_ONE_REPORT,
        name="complete_tasks",
        max_batch=3,
        reconnect_max_seconds=0.01,
        observe=metrics.report_observer("complete_tasks"),
    )

    async def main() -> None:
        reports = [TaskReport(str(uuid.uuid4()), "s", i, 1, "1") for i in range(5)]
        await asyncio.gather(*(batcher.report(r) for r in reports))

    asyncio.run(main())
    size = {"function": "complete_tasks"}
    # Queued together, sent at most 3 per call: a call of 3, then one of 2.
    assert pool.sent == [queries.COMPLETE_TASKS, queries.COMPLETE_TASKS]
    assert value(metrics, "pgflow_worker_report_batch_size_count", **size) == 2
    assert value(metrics, "pgflow_worker_report_batch_size_sum", **size) == 5
    assert value(metrics, "pgflow_worker_report_batch_size_bucket", **size, le="1.0") == 0
    assert value(metrics, "pgflow_worker_report_batch_size_bucket", **size, le="2.0") == 1
    assert value(metrics, "pgflow_worker_report_batch_size_bucket", **size, le="5.0") == 2
    assert value(metrics, "pgflow_worker_report_duration_seconds_count", **size) == 2

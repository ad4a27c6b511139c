"""The worker's Prometheus metrics without a database: what WorkerMetrics counts, what the
executor counts for each answer SQL gives to a report (completed, retried, failed for good,
output rejected, ignored), the poll and report observers, and the HTTP endpoint parsed
with the Prometheus text parser. With a real worker process:
tests/integration/test_worker_metrics.py.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import urllib.request
import uuid
from contextlib import asynccontextmanager
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from pgflow.dsl import Flow
from pgflow.errors import WorkerStartupError
from pgflow.worker import queries
from pgflow.worker.config import WorkerConfig
from pgflow.worker.executor import Executor
from pgflow.worker.metrics import (
    BATCH_SIZE_BUCKETS,
    LATENCY_BUCKETS,
    TASK_DURATION_BUCKETS,
    WorkerMetrics,
    serve_metrics,
)
from pgflow.worker.poller import FlowPoller, Slots
from pgflow.worker.reports import ReportBatcher, TaskReport
from pgflow.worker.suspension import SuspensionClock
from tests.unit.test_worker_executor import NoFlowInput, claimed

COMPLETED = ("completed", "completed", None, None)
RETRIED = ("queued", "retried", None, None)
EXHAUSTED = ("failed", "failed", "exhausted", None)
STALE = ("started", "ignored", "stale_attempt", None)
REJECTED = ("failed", "failed", "type_violation", "[TYPE_VIOLATION] not an array")
BATCH = {
    queries.COMPLETE_TASKS_ONE_REPORT: queries.COMPLETE_TASKS,
    queries.FAIL_TASKS_ONE_REPORT: queries.FAIL_TASKS,
}


def value(metrics: WorkerMetrics, name: str, **labels: str) -> float:
    """One sample of the registry (0 when it does not exist yet)."""
    return metrics.registry.get_sample_value(name, labels) or 0.0


class ScriptedReports:
    """A pool answering each report statement with its next scripted row (one per item)."""

    def __init__(self, complete: list[tuple[Any, ...]], fail: list[tuple[Any, ...]]) -> None:
        self.answers = {queries.COMPLETE_TASKS: list(complete), queries.FAIL_TASKS: list(fail)}
        self.sent: list[str] = []

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        pool = self

        class Cursor:
            def __init__(self, rows: list[tuple[Any, ...]]) -> None:
                self.rows = rows

            async def fetchall(self) -> list[tuple[Any, ...]]:
                return self.rows

        class Connection:
            async def execute(self, query: str, params: dict[str, Any]) -> Cursor:
                query = BATCH.get(query, query)
                pool.sent.append(query)
                items = len(params.get("run_ids", [None]))
                return Cursor([pool.answers[query].pop(0) for _ in range(items)])

        yield Connection()


def executor_on(pool: ScriptedReports, metrics: WorkerMetrics) -> Executor:
    def batcher(statement: Any, one: Any, name: str) -> ReportBatcher:
        return ReportBatcher(
            pool,  # type: ignore[arg-type]
            statement=statement,
            one_report_statement=one,
            name=name,
            max_batch=10,
            reconnect_max_seconds=0.01,
            permanent=name == "fail_tasks",
            observe=metrics.report_observer(name),
        )

    return Executor(
        flow_inputs=lambda run_id: NoFlowInput(),
        shutdown=threading.Event(),
        completions=batcher(
            queries.COMPLETE_TASKS, queries.COMPLETE_TASKS_ONE_REPORT, "complete_tasks"
        ),
        failures=batcher(queries.FAIL_TASKS, queries.FAIL_TASKS_ONE_REPORT, "fail_tasks"),
        clock=SuspensionClock(),
        metrics=metrics,
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


class ReadPool:
    """A pool whose read_and_start_tasks call returns no row (an empty queue)."""

    def __init__(self) -> None:
        self.reads = 0

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        pool = self

        class Cursor:
            async def execute(self, query: str, params: dict[str, Any]) -> None:
                assert query == queries.READ_AND_START_TASKS
                pool.reads += 1

            async def fetchall(self) -> list[dict[str, Any]]:
                return []

        class Connection:
            def cursor(self, row_factory: Any = None) -> Cursor:
                return Cursor()

        yield Connection()


def test_each_read_is_observed_in_its_flows_poll_histogram():
    flow = Flow("polled")

    @flow.step()
    def only(input):
        return 1

    metrics = WorkerMetrics()
    pool = ReadPool()
    poller = FlowPoller(
        flow=flow,
        worker_id=uuid.uuid4(),
        pool=pool,  # type: ignore[arg-type]
        slots=Slots(4),
        config=WorkerConfig(dsn=""),
        spawn=lambda task: None,
        stop=asyncio.Event(),
        observe_poll=metrics.poll_observer("polled"),
    )

    async def main() -> None:
        for _ in range(3):
            assert await poller.poll_once(4) == ([], 0)

    asyncio.run(main())
    assert pool.reads == 3
    assert value(metrics, "pgflow_worker_poll_duration_seconds_count", flow="polled") == 3
    assert value(metrics, "pgflow_worker_poll_duration_seconds_bucket", flow="polled", le="+Inf")


def test_requeues_and_the_description_of_the_worker():
    metrics = WorkerMetrics()
    metrics.stalled_requeued(3)
    metrics.stalled_requeued(2)
    assert value(metrics, "pgflow_worker_stalled_tasks_requeued_total") == 5
    assert metrics.totals.requeued == 5
    ids = {"a": str(uuid.uuid4()), "b": str(uuid.uuid4())}
    for mode in ("upstream", "pgflow-py"):  # described again: the old series go
        metrics.describe_worker(ids, version="9.9.9", sql_mode=mode, max_concurrency=7)
    (info,) = [s for s in metrics.registry.collect() if s.name == "pgflow_worker_info"]
    infos = info.samples
    assert sorted((s.labels["flow"], s.labels["worker_id"], s.value) for s in infos) == sorted(
        (flow, worker_id, 1.0) for flow, worker_id in ids.items()
    )
    assert {s.labels["sql_mode"] for s in infos} == {"pgflow-py"}
    assert {s.labels["version"] for s in infos} == {"9.9.9"}
    assert value(metrics, "pgflow_worker_max_concurrency") == 7


def test_two_workers_in_one_process_count_apart():
    first, second = WorkerMetrics(), WorkerMetrics()
    first.task_started("f", "s")
    assert value(first, "pgflow_worker_tasks_started_total", flow="f", step="s") == 1
    assert value(second, "pgflow_worker_tasks_started_total", flow="f", step="s") == 0
    shared = CollectorRegistry()
    WorkerMetrics(shared)
    with pytest.raises(ValueError, match="Duplicated timeseries"):
        WorkerMetrics(shared)  # one registry holds one worker's metrics


def test_buckets_are_increasing_and_in_base_units():
    for buckets in (TASK_DURATION_BUCKETS, LATENCY_BUCKETS, BATCH_SIZE_BUCKETS):
        assert list(buckets) == sorted(set(buckets))
    assert TASK_DURATION_BUCKETS[0] == 0.005 and TASK_DURATION_BUCKETS[-1] == 3600
    assert LATENCY_BUCKETS[0] == 0.001 and LATENCY_BUCKETS[-1] == 10
    assert BATCH_SIZE_BUCKETS[0] == 1


def scrape(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def test_the_endpoint_serves_the_registry_in_the_text_format():
    metrics = WorkerMetrics()
    step = metrics.task_started("served", "s")
    metrics.task_completed(step, 0.2)
    metrics.task_ended(step)
    server = serve_metrics(metrics.registry, "127.0.0.1", 0)
    try:
        assert server.port > 0 and server.host == "127.0.0.1"
        families = scrape(server.port)
    finally:
        server.close()
    # The parser names counters without their _total suffix; their samples keep it.
    completed = families["pgflow_worker_tasks_completed"]
    assert completed.type == "counter"
    assert [
        (s.name, s.labels, s.value) for s in completed.samples if s.name.endswith("_total")
    ] == [("pgflow_worker_tasks_completed_total", {"flow": "served", "step": "s"}, 1.0)]
    duration = families["pgflow_worker_task_duration_seconds"]
    assert duration.type == "histogram"
    buckets = {
        s.labels["le"]: s.value
        for s in duration.samples
        if s.name.endswith("_bucket") and s.labels["outcome"] == "completed"
    }
    assert (buckets["0.1"], buckets["0.25"], buckets["+Inf"]) == (0, 1, 1)
    assert families["pgflow_worker_tasks_in_flight"].type == "gauge"
    for name in ("pgflow_worker_poll_duration_seconds", "pgflow_worker_report_batch_size"):
        assert families[name].type == "histogram"
    # No process or platform collectors of the global registry.
    assert not [name for name in families if not name.startswith("pgflow_worker_")]


def test_a_port_in_use_is_a_startup_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(WorkerStartupError, match=f"cannot serve metrics on 127.0.0.1:{port}"):
            serve_metrics(WorkerMetrics().registry, "127.0.0.1", port)


def test_closing_the_endpoint_frees_its_port():
    server = serve_metrics(WorkerMetrics().registry, "127.0.0.1", 0)
    port = server.port
    server.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)

"""The worker's metrics registry without a database: each poll observed in its flow's
histogram, requeues counted, the worker described (pgflow_worker_info), two workers in one
process counted apart, and the histograms' buckets.
"""

from __future__ import annotations

import asyncio
import uuid
from contextlib import asynccontextmanager
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.config import WorkerConfig
from pgflow.worker.metrics import (
    BATCH_SIZE_BUCKETS,
    LATENCY_BUCKETS,
    TASK_DURATION_BUCKETS,
    WorkerMetrics,
)
from pgflow.worker.poller import FlowPoller, Slots
from tests.unit.metrics_fakes import value


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

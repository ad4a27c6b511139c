"""What the worker's metrics tests share (test_worker_metrics_*.py): the rows SQL answers to
a report, a pool answering each report with its next scripted row, an Executor counting
into a WorkerMetrics through it, and ``value`` to read one sample of the registry.
"""

from __future__ import annotations

import threading
from contextlib import asynccontextmanager
from typing import Any

from pgflow.worker import queries
from pgflow.worker.executor import Executor
from pgflow.worker.metrics import WorkerMetrics
from pgflow.worker.reports import ReportBatcher
from pgflow.worker.suspension import SuspensionClock
from tests.unit.executor_fakes import NoFlowInput

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

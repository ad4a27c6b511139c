"""The worker's log levels and summary line without a database: a task's start and
completion at DEBUG only, a failed attempt once with its traceback (WARNING when SQL retries
it, ERROR when it was the last), the requeue of stalled tasks at WARNING with the tasks,
the periodic summary, and the command-line options of metrics and summary. With a real
worker process: tests/integration/test_worker_log_levels.py.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest
from click.testing import CliRunner

from pgflow.cli import worker as cli
from pgflow.dsl import Flow
from pgflow.worker.config import WorkerConfig
from pgflow.worker.metrics import WorkerMetrics
from pgflow.worker.queries import LATEST_REQUEUED_TASKS, TICK
from pgflow.worker.summary import ActivitySummary, summary_text
from pgflow.worker.tick import Ticker
from tests.unit.executor_fakes import claimed
from tests.unit.metrics_fakes import (
    COMPLETED,
    EXHAUSTED,
    RETRIED,
    ScriptedReports,
    executor_on,
)
from tests.unit.test_worker_faults import ScriptedPool

FLOW = "tests.integration.flows.basic:chain"


def levelled_flow() -> Flow:
    flow = Flow("levels", timeout=10)

    @flow.step()
    def fine(input):
        return 1

    @flow.step()
    def broken_handler(input):
        raise KeyError("missing key")

    return flow


def run_logged(steps: list[str], complete: list, fail: list, caplog) -> list[logging.LogRecord]:
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    flow = levelled_flow()

    async def main() -> None:
        executor = executor_on(ScriptedReports(complete, fail), WorkerMetrics())
        for step in steps:
            await executor.run(claimed(flow, step, {}))

    asyncio.run(main())
    return [r for r in caplog.records if r.name == "pgflow.worker"]


def test_a_completed_task_logs_at_debug_only(caplog):
    records = run_logged(["fine", "fine"], [COMPLETED, COMPLETED], [], caplog)
    assert [(r.levelno, r.getMessage()) for r in records] == [
        (logging.DEBUG, "task started"),
        (logging.DEBUG, "task completed"),
    ] * 2
    assert records[1].fields["duration_ms"] >= 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("answer", "level"), [(RETRIED, logging.WARNING), (EXHAUSTED, logging.ERROR)]
)
def test_a_failed_attempt_is_logged_once_with_its_traceback(answer, level, caplog):
    records = run_logged(["broken_handler"], [], [answer], caplog)
    loud = [r for r in records if r.levelno >= logging.INFO]
    assert [(r.levelno, r.getMessage()) for r in loud] == [(level, "task failed")]
    (failed,) = loud
    assert failed.exc_info is not None and isinstance(failed.exc_info[1], KeyError)
    text = logging.Formatter().formatException(failed.exc_info)
    assert "broken_handler" in text and "KeyError: 'missing key'" in text
    assert failed.fields["outcome"] == answer[1]  # type: ignore[attr-defined]


def test_summary_text_reads_like_a_sentence():
    metrics = WorkerMetrics()
    totals = metrics.totals
    totals.completed, totals.failed, totals.retried, totals.requeued = 1204, 3, 2, 0
    assert summary_text(60.2, totals, 4) == (
        "last 60 s: 1,204 tasks completed, 3 failed (2 will be retried), "
        "0 requeued by the sweep, 4 in flight"
    )
    totals.ignored = 2
    assert summary_text(1.0, totals, 0).startswith("last 1 s: ")
    assert summary_text(2.5, totals, 0).endswith("0 in flight, 2 reports ignored")


def test_the_summary_logs_each_interval_and_an_idle_one_once(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    metrics = WorkerMetrics()
    summary = ActivitySummary(metrics, 60)
    summary.log_interval(0.0)  # the first line says the summary works (idle)
    assert summary.log_interval(60.0) is None  # idle again: nothing repeated

    step = metrics.task_started("f", "s")
    metrics.task_failed(step, 0.1, retried=True)
    metrics.task_ended(step)
    step = metrics.task_started("f", "s")
    metrics.stalled_requeued(3)
    busy = summary.log_interval(120.0)
    assert busy == {
        "interval_s": 60.0,
        "started": 2,
        "completed": 0,
        "failed": 1,
        "retried": 1,
        "ignored": 0,
        "requeued": 3,
        "in_flight": 1,
    }
    waiting = summary.log_interval(180.0)  # nothing happened, but a task is in flight
    assert waiting is not None and waiting["in_flight"] == 1 and waiting["started"] == 0
    metrics.task_completed(step, 0.5)
    metrics.task_ended(step)
    done = summary.log_interval(240.0)
    assert done is not None and (done["completed"], done["in_flight"]) == (1, 0)
    assert summary.log_interval(300.0) is not None  # idle after work: said once
    assert summary.log_interval(360.0) is None
    lines = [r for r in caplog.records if r.getMessage().startswith("last ")]
    assert len(lines) == 5 and {r.levelno for r in lines} == {logging.INFO}
    assert lines[1].getMessage() == (
        "last 60 s: 0 tasks completed, 1 failed (1 will be retried), "
        "3 requeued by the sweep, 1 in flight"
    )


def test_the_summary_timer_logs_until_cancelled(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    metrics = WorkerMetrics()
    metrics.task_started("f", "s")  # in flight: every interval is logged

    async def main() -> None:
        timer = asyncio.create_task(ActivitySummary(metrics, 0.02).run())
        deadline = asyncio.get_running_loop().time() + 5
        while len([r for r in caplog.records if r.getMessage().startswith("last ")]) < 3:
            assert asyncio.get_running_loop().time() < deadline, "no summary lines"
            await asyncio.sleep(0.01)
        timer.cancel()
        await asyncio.gather(timer, return_exceptions=True)

    asyncio.run(main())


def test_the_summary_interval_must_be_positive():
    with pytest.raises(ValueError, match="interval_seconds must be positive"):
        ActivitySummary(WorkerMetrics(), 0)


def requeue_pool(lookup: object) -> ScriptedPool:
    def answer(query, params):
        if query == TICK:
            return (True, 0, 2, 0, 0, 0)
        if query == LATEST_REQUEUED_TASKS:
            return lookup
        return (0, None, None)  # nothing permanently stalled

    return ScriptedPool(answer)


TASKS = [
    {"flow_slug": "f", "run_id": "r1", "step_slug": "s", "task_index": 0, "requeued_count": 1},
    {"flow_slug": "f", "run_id": "r2", "step_slug": "s", "task_index": 3, "requeued_count": 2},
]


@pytest.mark.parametrize(
    ("lookup", "logged"),
    [
        ((2, TASKS), {"requeued": 2, "tasks": TASKS}),
        ((3, TASKS), {"requeued": 2}),  # another requeue came in between: the count alone
        (psycopg.errors.InsufficientPrivilege("no"), {"requeued": 2}),
    ],
)
def test_a_requeue_is_logged_at_warning_with_its_tasks(lookup, logged, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    counted: list[int] = []
    pool = requeue_pool(lookup)
    ticker = Ticker(pool=pool, interval_seconds=1, on_requeued=counted.append)  # type: ignore[arg-type]
    asyncio.run(ticker.tick_once())
    (record,) = [r for r in caplog.records if r.getMessage() == "stalled tasks requeued"]
    assert record.levelno == logging.WARNING
    assert record.fields == logged  # type: ignore[attr-defined]
    assert counted == [2]
    assert [q for q, _ in pool.sent].count(LATEST_REQUEUED_TASKS) == 1


def test_a_tick_that_requeues_nothing_reads_no_tasks():
    pool = ScriptedPool(
        lambda query, params: (True, 0, 0, 0, 0, 0) if query == TICK else (0, None, None)
    )
    counted: list[int] = []
    ticker = Ticker(pool=pool, interval_seconds=1, on_requeued=counted.append)  # type: ignore[arg-type]
    asyncio.run(ticker.tick_once())
    assert LATEST_REQUEUED_TASKS not in [q for q, _ in pool.sent]
    assert counted == []


def test_metrics_are_off_and_the_summary_every_minute_by_default(fake_worker):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert (config.metrics_port, config.metrics_host) == (None, "127.0.0.1")
    assert config.log_summary_interval_seconds == 60.0


def test_metrics_and_summary_options_reach_the_config(fake_worker):
    args = ["--metrics-port", "9464", "--metrics-host", "0.0.0.0", "--log-summary-interval", "0"]
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert (config.metrics_port, config.metrics_host) == (9464, "0.0.0.0")
    assert config.log_summary_interval_seconds == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--metrics-port", "65536"],
        ["--metrics-port", "-1"],
        ["--log-summary-interval", "-1"],
        # A typo in the level is a usage error (exit 2: systemd does not restart it), not a
        # traceback.
        ["--log-level", "bogus"],
    ],
)
def test_bad_metrics_and_summary_options_are_usage_errors(fake_worker, args):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 2
    assert fake_worker == []


def test_the_config_checks_the_port_and_the_summary_interval():
    with pytest.raises(ValueError, match="metrics_port must be between 0 and 65535"):
        WorkerConfig(dsn="x", metrics_port=70000)
    with pytest.raises(ValueError, match="log_summary_interval_seconds must not be negative"):
        WorkerConfig(dsn="x", log_summary_interval_seconds=-1)
    assert WorkerConfig(dsn="x", metrics_port=0).metrics_port == 0

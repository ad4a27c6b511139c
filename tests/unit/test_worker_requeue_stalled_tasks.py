"""The worker's periodic ``pgflow.requeue_stalled_tasks()`` call without a database: what
one call reports, the permanently-stalled alert, a timer that never dies, and its setting
(``requeue_stalled_interval_seconds``, ``--requeue-stalled-interval`` and the deprecated
``--sweep-interval``). Against a real database: tests/integration/test_requeue_stalled_tasks.py
and tests/e2e/test_requeue_stalled_tasks.py.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import psycopg
import pytest
from click.testing import CliRunner

from pgflow.cli import worker as cli
from pgflow.worker import queries
from pgflow.worker.config import WorkerConfig
from pgflow.worker.requeue_stalled_tasks import StalledTaskRequeuer
from tests.unit.test_worker_faults import ScriptedPool

FLOW = "tests.integration.flows.basic:chain"


def test_one_call_returns_and_logs_how_many_tasks_it_requeued(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")

    def answer(query, params):
        if query == queries.REQUEUE_STALLED_TASKS:
            return (2,)
        return (0, None, None)  # nothing permanently stalled

    pool = ScriptedPool(answer)
    requeuer = StalledTaskRequeuer(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    assert asyncio.run(requeuer.requeue_once()) == 2
    assert asyncio.run(requeuer.requeue_once()) == 2
    assert requeuer.requeued == 4
    assert [q for q, _ in pool.sent].count(queries.REQUEUE_STALLED_TASKS) == 2
    logged = [r for r in caplog.records if r.getMessage() == "stalled tasks requeued"]
    assert [r.fields for r in logged] == [{"requeued": 2}] * 2  # type: ignore[attr-defined]


def test_a_call_that_requeues_nothing_logs_nothing(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    pool = ScriptedPool(
        lambda query, params: (0,) if query == queries.REQUEUE_STALLED_TASKS else (0, None, None)
    )
    requeuer = StalledTaskRequeuer(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    assert asyncio.run(requeuer.requeue_once()) == 0
    assert caplog.records == []


def test_the_worker_calls_the_upstream_function():
    assert "pgflow.requeue_stalled_tasks()" in queries.REQUEUE_STALLED_TASKS
    assert "pgflow.requeue_stalled_tasks()" in queries.WORKER_FUNCTIONS


def test_alerts_once_per_newly_permanently_stalled_task(caplog):
    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    sample = [{"flow_slug": "f", "run_id": "r", "step_slug": "s", "task_index": 0}]

    def answer(query, params):
        if query == queries.REQUEUE_STALLED_TASKS:
            return (0,)
        if params["since"] is None:
            return (1, stamp, sample)
        assert params["since"] == stamp
        return (0, None, None)

    pool = ScriptedPool(answer)
    requeuer = StalledTaskRequeuer(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    asyncio.run(requeuer.requeue_once())
    asyncio.run(requeuer.requeue_once())
    alerts = [r for r in caplog.records if r.getMessage().startswith("tasks permanently stalled")]
    assert len(alerts) == 1
    assert alerts[0].levelno == logging.ERROR
    assert alerts[0].fields == {"permanently_stalled": 1, "tasks": sample}  # type: ignore[attr-defined]


def test_the_timer_survives_database_and_unexpected_errors(caplog):
    calls = {"n": 0}

    def answer(query, params):
        if query != queries.REQUEUE_STALLED_TASKS:
            return (0, None, None)
        calls["n"] += 1
        if calls["n"] == 1:
            return psycopg.OperationalError("server closed the connection")
        if calls["n"] == 2:
            return RuntimeError("bug")
        return (1,)

    pool = ScriptedPool(answer)
    requeuer = StalledTaskRequeuer(pool=pool, interval_seconds=0.01)  # type: ignore[arg-type]

    async def main() -> None:
        task = asyncio.create_task(requeuer.run())
        while requeuer.requeued < 1:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), 5))
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert (logging.WARNING, "requeue stalled tasks failed") in messages
    assert (logging.ERROR, "requeue stalled tasks failed unexpectedly") in messages
    assert (logging.WARNING, "stalled tasks requeued") in messages


def test_interval_setting_defaults_to_15_s_and_must_not_be_negative():
    assert WorkerConfig(dsn="x").requeue_stalled_interval_seconds == 15.0
    assert (
        WorkerConfig(dsn="x", requeue_stalled_interval_seconds=0).requeue_stalled_interval_seconds
        == 0
    )
    with pytest.raises(ValueError, match="requeue_stalled_interval_seconds must not be negative"):
        WorkerConfig(dsn="x", requeue_stalled_interval_seconds=-1)


@pytest.fixture
def fake_worker(monkeypatch) -> list[WorkerConfig]:
    """Replace the CLI's Worker by one that records its config and runs nothing."""
    configs: list[WorkerConfig] = []

    class FakeWorker:
        def __init__(self, flows, config: WorkerConfig) -> None:
            configs.append(config)

        def run(self) -> int:
            return 0

    monkeypatch.setattr(cli, "Worker", FakeWorker)
    monkeypatch.setattr(cli, "configure_logging", lambda *args: None)
    return configs


@pytest.mark.parametrize(
    ("args", "seconds"),
    [
        ((), 15.0),
        (("--requeue-stalled-interval", "0.5"), 0.5),
        (("--requeue-stalled-interval", "0"), 0),
    ],
)
def test_cli_option_sets_the_interval(fake_worker, args, seconds):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert config.requeue_stalled_interval_seconds == seconds
    assert "deprecated" not in result.output


def test_cli_sweep_interval_is_a_hidden_deprecated_alias(fake_worker):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", "--sweep-interval", "2", FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert config.requeue_stalled_interval_seconds == 2
    assert "--sweep-interval is deprecated; use --requeue-stalled-interval" in result.output
    help_text = CliRunner().invoke(cli.main, ["--help"]).output
    assert "--requeue-stalled-interval" in help_text
    assert "--sweep-interval" not in help_text


def test_cli_refuses_both_the_option_and_its_alias(fake_worker):
    result = CliRunner().invoke(
        cli.main,
        ["--dsn", "dbname=x", "--sweep-interval", "2", "--requeue-stalled-interval", "3", FLOW],
    )
    assert result.exit_code == 2
    assert "give one" in result.output
    assert fake_worker == []

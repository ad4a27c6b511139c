"""Worker pieces without a database: logs, settings, backoff, DSN, SQL names, lifecycle,
concurrency slots, drain, the context and its lazy flow input, the command line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading

import pytest
from click.testing import CliRunner

from pgflow.cli.util import command_dsn
from pgflow.cli.worker import load_flow, main
from pgflow.context import Context, KnownFlowInput
from pgflow.errors import NoDatabaseConfigured
from pgflow.worker import queries
from pgflow.worker.config import Backoff, WorkerConfig
from pgflow.worker.flow_input import RunInputCache
from pgflow.worker.lifecycle import Lifecycle, WorkerState, drain
from pgflow.worker.log import JsonFormatter, TextFormatter, fields
from pgflow.worker.poller import Slots


def _record(message: str, **values) -> logging.LogRecord:
    logger = logging.getLogger("pgflow.worker")
    return logger.makeRecord(
        "pgflow.worker", logging.INFO, __file__, 1, message, (), None, extra=fields(**values)
    )


# ---------------------------------------------------------------- logs


def test_json_log_line_is_one_object_with_fields():
    line = JsonFormatter().format(
        _record("task completed", run_id="r1", step_slug="s", task_index=0, attempt=2)
    )
    assert "\n" not in line
    data = json.loads(line)
    assert data["msg"] == "task completed"
    assert data["level"] == "info"
    assert data["logger"] == "pgflow.worker"
    assert data["ts"].endswith("Z")
    assert (data["run_id"], data["step_slug"], data["task_index"], data["attempt"]) == (
        "r1",
        "s",
        0,
        2,
    )


def test_json_log_fields_never_override_base_keys_and_exceptions_stay_on_one_line():
    try:
        raise ValueError("boom")
    except ValueError:
        record = _record("failed", msg="override")
        record.exc_info = sys.exc_info()
    line = JsonFormatter().format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["msg"] == "failed"
    assert "ValueError: boom" in data["exc"]


def test_text_log_line_is_human_readable():
    line = TextFormatter().format(_record("task failed", run_id="r1", error="ValueError: x y"))
    assert " INFO  pgflow.worker: task failed run_id=r1 " in line
    assert line.endswith('error="ValueError: x y"')


# ---------------------------------------------------------------- settings, backoff, DSN


def test_config_defaults_and_validation():
    config = WorkerConfig(dsn="dbname=x")
    assert (config.max_concurrency, config.batch_size, config.max_connections) == (32, 32, 4)
    assert config.poll_interval_seconds == 1.0
    assert config.shutdown_grace_seconds == 30.0
    with pytest.raises(ValueError, match="max_connections must be positive"):
        WorkerConfig(dsn="x", max_connections=0)
    with pytest.raises(ValueError, match="shutdown_grace_seconds must not be negative"):
        WorkerConfig(dsn="x", shutdown_grace_seconds=-1)


def test_backoff_doubles_up_to_the_cap_and_resets():
    backoff = Backoff(cap_seconds=3)
    assert [backoff.next_delay() for _ in range(5)] == [0.5, 1, 2, 3, 3]
    backoff.reset()
    assert backoff.next_delay() == 0.5


def test_worker_command_dsn_resolution_order(monkeypatch):
    monkeypatch.setenv("PGFLOW_DEV_CLUSTER", "off")  # no embedded cluster fallback here
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "postgresql:///a")
    monkeypatch.setenv("DATABASE_URL", "postgresql:///b")
    assert command_dsn("postgresql:///explicit") == "postgresql:///explicit"
    assert command_dsn(None) == "postgresql:///a"
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "")
    assert command_dsn("") == "postgresql:///b"
    monkeypatch.delenv("DATABASE_URL")
    with pytest.raises(NoDatabaseConfigured, match="--dsn"):
        command_dsn(None)


def test_notify_channel_is_lower_cased_and_quoted():
    assert queries.notify_channel("My_Flow") == "pgmq.q_my_flow.INSERT"
    assert queries.listen_statement("My_Flow") == 'LISTEN "pgmq.q_my_flow.INSERT"'
    with pytest.raises(ValueError):
        queries.notify_channel('bad"name')


def test_worker_sql_changes_state_only_through_functions():
    statements = [v for k, v in vars(queries).items() if k.isupper() and isinstance(v, str)]
    assert statements
    for statement in statements:
        lowered = statement.lower()
        assert "insert into" not in lowered
        assert not lowered.lstrip().startswith(("update", "delete", "insert"))


# ---------------------------------------------------------------- lifecycle, slots, drain


def test_lifecycle_transitions():
    async def main() -> None:
        lifecycle = Lifecycle()
        with pytest.raises(RuntimeError, match="from created to running"):
            lifecycle.to(WorkerState.RUNNING)
        for state in (WorkerState.STARTING, WorkerState.RUNNING, WorkerState.STOPPING):
            lifecycle.to(state)
        lifecycle.to(WorkerState.STOPPED)
        assert lifecycle.state is WorkerState.STOPPED

    asyncio.run(main())


def test_stop_request_sets_shutdown_and_a_second_signal_abandons():
    async def main() -> None:
        lifecycle = Lifecycle()
        lifecycle.request_stop("SIGTERM")
        assert lifecycle.stop_requested.is_set()
        assert lifecycle.shutdown.is_set()
        assert not lifecycle.abandon.is_set()
        lifecycle.request_stop("SIGINT")
        assert lifecycle.abandon.is_set()
        assert lifecycle.stop_reason == "SIGTERM"

    asyncio.run(main())


def test_slots_reserve_and_release():
    async def main() -> None:
        slots = Slots(3)
        assert slots.reserve(2) == 2
        assert slots.reserve(5) == 1
        assert slots.reserve(1) == 0
        waiter = asyncio.ensure_future(slots.wait_free())
        await asyncio.sleep(0)
        assert not waiter.done()
        slots.release(1)
        await asyncio.wait_for(waiter, 1)
        assert slots.free == 1

    asyncio.run(main())


def test_drain_waits_for_quick_tasks_and_abandons_slow_ones():
    async def main() -> None:
        finished: list[str] = []

        async def work(name: str, seconds: float) -> None:
            await asyncio.sleep(seconds)
            finished.append(name)

        quick = asyncio.ensure_future(work("quick", 0.01))
        slow = asyncio.ensure_future(work("slow", 30))
        abandoned = await drain({quick, slow}, 0.2, asyncio.Event())
        assert abandoned == 1
        assert finished == ["quick"]
        assert slow.cancelled()

    asyncio.run(main())


def test_drain_stops_waiting_when_abandon_is_set():
    async def main() -> None:
        slow = asyncio.ensure_future(asyncio.sleep(30))
        abandon = asyncio.Event()
        asyncio.get_running_loop().call_later(0.05, abandon.set)
        assert await asyncio.wait_for(drain({slow}, 30, abandon), 5) == 1

    asyncio.run(main())


# ---------------------------------------------------------------- context and flow input


def test_context_with_known_flow_input():
    ctx = Context(
        flow_slug="f",
        run_id="r",
        step_slug="s",
        task_index=0,
        attempt=1,
        worker_id="w",
        raw_message={},
        step_task={},
        shutdown=threading.Event(),
        timeout_seconds=60,
        flow_input_source=KnownFlowInput({"a": 1}),
    )
    assert ctx.flow_input == {"a": 1}
    assert asyncio.run(ctx.get_flow_input()) == {"a": 1}
    assert not ctx.shutdown_requested
    with pytest.raises(AttributeError):
        ctx.attempt = 2  # type: ignore[misc]


def test_blocking_flow_input_on_the_loop_thread_asks_for_await():
    async def main() -> None:
        cache = RunInputCache(pool=None, loop=asyncio.get_running_loop())  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match=r"await ctx\.get_flow_input"):
            cache.load_blocking("r")

    asyncio.run(main())


# ---------------------------------------------------------------- command line


def test_load_flow_accepts_flows_and_jobs():
    flow = load_flow("tests.integration.flows.basic:chain")
    assert flow.slug == "chain"
    assert load_flow("tests.integration.flows.basic:echo_job").slug == "echo_job"


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no_colon", "expected module:attribute"),
        ("tests.integration.flows.nope:x", "cannot import"),
        ("tests.integration.flows.basic:missing", "has no attribute 'missing'"),
        ("tests.integration.flows.basic:asyncio", "not a pgflow Flow or Job"),
        ("tests.integration.flows.invalid_option:broken", "timeout"),  # no traceback
    ],
)
def test_load_flow_rejects_bad_references(reference, message):
    import click

    with pytest.raises(click.BadParameter, match=message):
        load_flow(reference)


def test_cli_without_a_database_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("PGFLOW_DEV_CLUSTER", "off")
    monkeypatch.delenv("PGFLOW_DATABASE_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    result = CliRunner().invoke(main, ["tests.integration.flows.basic:chain"])
    assert result.exit_code == 2
    assert "no database given" in result.output


def test_cli_requires_a_flow():
    result = CliRunner().invoke(main, ["--dsn", "dbname=x"])
    assert result.exit_code == 2
    assert "MODULE:FLOW" in result.output


def test_worker_privilege_check_lists_every_pgflow_function_the_worker_calls() -> None:
    statements = [v for k, v in vars(queries).items() if k.isupper() and isinstance(v, str)]
    called = {name for s in statements for name in re.findall(r"\bpgflow\.([a-z_]+)\(", s)}
    checked = {re.match(r"pgflow\.([a-z_]+)\(", f).group(1) for f in queries.WORKER_FUNCTIONS}
    read = {t for s in statements for t in re.findall(r"\bfrom (pgflow\.[a-z_]+)\b(?!\()", s)}
    # (pgflow._now() calls pgflow._test_clock_now() where the test clock is on)
    assert called | {"_test_clock_now"} == checked
    # (pgflow._now() reads pgflow.test_clock with the caller's rights)
    assert read | {"pgflow.test_clock"} == set(queries.WORKER_TABLES)

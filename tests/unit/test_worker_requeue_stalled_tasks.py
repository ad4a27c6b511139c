"""The worker's periodic ``pgflow.tick()`` call (which requeues stalled tasks) without a
database: what one call reports (its six counts; expired and started queued runs logged),
a round that calls again at once while a call fired ``max_runs`` waits or expired or
started ``max_runs`` runs (at most ``max_rounds`` calls), the permanently-stalled alert, a timer
that never dies, and its setting (``tick_interval_seconds``, ``--tick-interval`` (0, or at
least 0.1 s) and the deprecated ``--requeue-stalled-interval`` and ``--sweep-interval``).
Against a real database:
tests/integration/test_requeue_stalled_tasks_*.py, tests/integration/test_worker_tick.py and
tests/e2e/test_requeue_stalled_tasks.py.
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
from pgflow.worker.queries import TICK
from pgflow.worker.tick import Ticker, TickResult
from tests.unit.test_worker_faults import ScriptedPool

FLOW = "tests.integration.flows.basic:chain"


def test_one_call_returns_and_logs_how_many_tasks_it_requeued(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")

    def answer(query, params):
        if query == TICK:
            return (True, 0, 2, 0, 0, 0)
        return (0, None, None)  # nothing permanently stalled

    pool = ScriptedPool(answer)
    ticker = Ticker(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    assert asyncio.run(ticker.tick_once()) == TickResult(True, 0, 2)
    assert asyncio.run(ticker.tick_once()) == TickResult(True, 0, 2)
    assert ticker.requeued == 4
    assert [q for q, _ in pool.sent].count(TICK) == 2
    logged = [r for r in caplog.records if r.getMessage() == "stalled tasks requeued"]
    assert [r.fields for r in logged] == [{"requeued": 2}] * 2  # type: ignore[attr-defined]


def test_one_call_logs_how_many_waits_it_fired(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    pool = ScriptedPool(
        lambda query, params: (True, 3, 0, 0, 0, 0) if query == TICK else (0, None, None)
    )
    ticker = Ticker(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    assert asyncio.run(ticker.tick_once()) == TickResult(True, 3, 0)
    assert (ticker.fired, ticker.requeued) == (3, 0)
    logged = [r for r in caplog.records if r.getMessage() == "waits fired"]
    assert [(r.levelno, r.fields) for r in logged] == [(logging.INFO, {"fired_waits": 3})]  # type: ignore[attr-defined]


def test_a_call_that_requeues_nothing_logs_nothing(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    pool = ScriptedPool(
        lambda query, params: (False, 0, 0, 0, 0, 0) if query == TICK else (0, None, None)
    )
    ticker = Ticker(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    assert asyncio.run(ticker.tick_once()) == TickResult(False, 0, 0)  # another tick ran
    assert caplog.records == []


def test_the_worker_calls_tick_which_requeues_stalled_tasks():
    assert "pgflow.tick(max_runs => %(max_runs)s::int)" in TICK
    assert "pgflow.tick(integer)" in queries.WORKER_FUNCTIONS
    assert "pgflow.requeue_stalled_tasks()" not in queries.WORKER_FUNCTIONS  # tick calls it


def test_a_call_parses_the_six_counts_and_logs_expired_and_started_runs(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    rows = iter([(True, 0, 0, 2, 1, 4), (True, 0, 0, 0, 0, 3), (True, 0, 0, 0, 5, 0)])
    pool = ScriptedPool(lambda query, params: next(rows) if query == TICK else (0, None, None))
    ticker = Ticker(pool=pool, interval_seconds=1)  # type: ignore[arg-type]

    results = [asyncio.run(ticker.tick_once()) for _ in range(3)]

    assert results == [
        TickResult(True, 0, 0, expired_runs=2, started_queued_runs=1, released_tasks=4),
        TickResult(True, 0, 0, released_tasks=3),
        TickResult(True, 0, 0, started_queued_runs=5),
    ]
    assert (ticker.expired, ticker.started_queued) == (2, 6)
    logged = [r for r in caplog.records if r.getMessage().startswith("tick ")]
    assert [(r.levelno, r.getMessage(), r.fields) for r in logged] == [  # type: ignore[attr-defined]
        (logging.INFO, "tick expired runs past their deadline", {"expired_runs": 2}),
        (logging.INFO, "tick started queued runs whose slot was free", {"started_queued_runs": 1}),
        (logging.INFO, "tick started queued runs whose slot was free", {"started_queued_runs": 5}),
    ]  # one line per kind a call did (none for a zero count, none for the call in between)


def test_the_tick_statement_reads_the_six_columns_and_nulls_count_as_zero():
    for column in (
        "ran",
        "fired_waits",
        "requeued_tasks",
        "expired_runs",
        "started_queued_runs",
        "released_tasks",
    ):
        assert column in TICK
    assert TickResult.from_row((True, None, None, None, None, None)) == TickResult(True, 0, 0)
    assert TickResult.from_row(None) == TickResult(False, 0, 0)


@pytest.mark.parametrize(
    ("row", "calls"),
    [
        ((True, 0, 0, 5, 0, 0), 3),  # expired max_runs runs: more may be due
        ((True, 0, 0, 0, 5, 0), 3),  # started the queued runs of max_runs keys
        ((True, 0, 0, 4, 4, 0), 1),  # below max_runs in each: all done
        ((True, 0, 9, 0, 0, 9), 1),  # requeued and released tasks never call again
    ],
)
def test_a_round_calls_again_while_expired_or_started_runs_reach_max_runs(row, calls):
    pool = ScriptedPool(lambda query, params: row if query == TICK else (0, None, None))
    ticker = Ticker(pool=pool, interval_seconds=60, max_runs=5, max_rounds=3)  # type: ignore[arg-type]

    assert len(asyncio.run(ticker.tick_round())) == calls
    assert len(tick_calls(pool)) == calls


def scripted_ticks(fired: list[int]) -> ScriptedPool:
    """A pool whose tick calls fire these numbers of waits in turn (then 0)."""
    left = list(fired)

    def answer(query, params):
        if query == TICK:
            return (True, left.pop(0) if left else 0, 0, 0, 0, 0)
        return (0, None, None)

    return ScriptedPool(answer)


def tick_calls(pool: ScriptedPool) -> list[dict]:
    return [params for query, params in pool.sent if query == TICK]


def test_a_round_calls_again_at_once_while_a_call_fired_max_runs_waits():
    pool = scripted_ticks([100, 100, 50, 100])
    ticker = Ticker(pool=pool, interval_seconds=60)  # type: ignore[arg-type]

    results = asyncio.run(ticker.tick_round())

    assert [r.fired_waits for r in results] == [100, 100, 50]  # 50 < 100: all fired
    assert tick_calls(pool) == [{"max_runs": 100}] * 3  # max_runs passed explicitly
    assert ticker.fired == 250


def test_a_round_that_fires_more_than_max_runs_goes_on():
    pool = scripted_ticks([7, 5, 4])  # a run may have several due waits
    ticker = Ticker(pool=pool, interval_seconds=60, max_runs=5)  # type: ignore[arg-type]
    assert [r.fired_waits for r in asyncio.run(ticker.tick_round())] == [7, 5, 4]
    assert tick_calls(pool) == [{"max_runs": 5}] * 3


def test_a_round_is_bounded_by_max_rounds(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    pool = scripted_ticks([100] * 20)
    ticker = Ticker(pool=pool, interval_seconds=60)  # type: ignore[arg-type]

    assert len(asyncio.run(ticker.tick_round())) == 10
    assert len(tick_calls(pool)) == 10
    notes = [r for r in caplog.records if "more may be due" in r.getMessage()]
    assert [r.fields for r in notes] == [{"calls": 10, "max_runs": 100}]  # type: ignore[attr-defined]


def test_a_round_ends_when_another_tick_holds_the_lock():
    pool = ScriptedPool(
        lambda query, params: (False, 0, 0, 0, 0, 0) if query == TICK else (0, None, None)
    )
    ticker = Ticker(pool=pool, interval_seconds=60, max_runs=1)  # type: ignore[arg-type]
    assert asyncio.run(ticker.tick_round()) == [TickResult(False, 0, 0)]


def test_the_timer_ticks_a_whole_round_each_interval():
    pool = scripted_ticks([3, 3, 1])
    ticker = Ticker(pool=pool, interval_seconds=3600, max_runs=3)  # type: ignore[arg-type]

    async def main() -> None:
        task = asyncio.create_task(ticker.run())
        while ticker.fired < 7:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), 5))  # one interval is an hour: no second round
    assert len(tick_calls(pool)) == 3


@pytest.mark.parametrize("options", [{"max_runs": 0}, {"max_rounds": 0}])
def test_max_runs_and_max_rounds_must_be_at_least_1(options):
    with pytest.raises(ValueError, match="must be >= 1"):
        Ticker(pool=scripted_ticks([]), interval_seconds=1, **options)  # type: ignore[arg-type]


def test_alerts_once_per_newly_permanently_stalled_task(caplog):
    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    sample = [{"flow_slug": "f", "run_id": "r", "step_slug": "s", "task_index": 0}]

    def answer(query, params):
        if query == TICK:
            return (True, 0, 0, 0, 0, 0)
        if params["since"] is None:
            return (1, stamp, sample)
        assert params["since"] == stamp
        return (0, None, None)

    pool = ScriptedPool(answer)
    ticker = Ticker(pool=pool, interval_seconds=1)  # type: ignore[arg-type]
    asyncio.run(ticker.tick_once())
    asyncio.run(ticker.tick_once())
    alerts = [r for r in caplog.records if r.getMessage().startswith("tasks permanently stalled")]
    assert len(alerts) == 1
    assert alerts[0].levelno == logging.ERROR
    assert alerts[0].fields == {"permanently_stalled": 1, "tasks": sample}  # type: ignore[attr-defined]


def test_the_timer_survives_database_and_unexpected_errors(caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    calls = {"n": 0}

    def answer(query, params):
        if query != TICK:
            return (0, None, None)
        calls["n"] += 1
        if calls["n"] == 1:
            return psycopg.OperationalError("server closed the connection")
        if calls["n"] == 2:
            return psycopg.errors.QueryCanceled("canceling statement due to statement timeout")
        if calls["n"] == 3:
            return RuntimeError("bug")
        return (True, 0, 1, 0, 0, 0)

    pool = ScriptedPool(answer)
    ticker = Ticker(pool=pool, interval_seconds=0.01)  # type: ignore[arg-type]

    async def main() -> None:
        task = asyncio.create_task(ticker.run())
        while ticker.requeued < 1:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), 5))
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    # No connection: DEBUG (the pool logs the outage once); a failed statement: WARNING.
    assert [level for level, message in messages if message == "tick failed"] == [
        logging.DEBUG,
        logging.WARNING,
    ]
    assert (logging.ERROR, "tick failed unexpectedly") in messages
    assert (logging.WARNING, "stalled tasks requeued") in messages


def test_interval_setting_defaults_to_5_s_and_must_not_be_negative():
    assert WorkerConfig(dsn="x").tick_interval_seconds == 5.0
    assert WorkerConfig(dsn="x", tick_interval_seconds=0).tick_interval_seconds == 0
    with pytest.raises(ValueError, match="tick_interval_seconds must not be negative"):
        WorkerConfig(dsn="x", tick_interval_seconds=-1)
    assert WorkerConfig(dsn="x", tick_interval_seconds=0.1).tick_interval_seconds == 0.1
    with pytest.raises(ValueError, match=r"must be 0 \(never\) or at least 0.1, got 0.001"):
        WorkerConfig(dsn="x", tick_interval_seconds=0.001)


@pytest.mark.parametrize(
    ("args", "seconds"),
    [
        ((), 5.0),
        (("--tick-interval", "0.5"), 0.5),
        (("--tick-interval", "0"), 0),
        (("--tick-interval", "0.1"), 0.1),
    ],
)
def test_cli_option_sets_the_interval(fake_worker, args, seconds):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert config.tick_interval_seconds == seconds
    assert "deprecated" not in result.output


def test_cli_requeue_stalled_interval_is_a_documented_deprecated_alias(fake_worker):
    result = CliRunner().invoke(
        cli.main, ["--dsn", "dbname=x", "--requeue-stalled-interval", "0.5", FLOW]
    )
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert config.tick_interval_seconds == 0.5
    assert "--requeue-stalled-interval is deprecated; use --tick-interval" in result.output
    help_text = " ".join(CliRunner().invoke(cli.main, ["--help"]).output.split())
    assert "--tick-interval" in help_text
    assert "--requeue-stalled-interval FLOAT RANGE Deprecated alias of --tick-interval." in (
        help_text
    )


def test_cli_sweep_interval_is_a_hidden_deprecated_alias(fake_worker):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", "--sweep-interval", "2", FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert config.tick_interval_seconds == 2
    assert "--sweep-interval is deprecated; use --tick-interval" in result.output
    help_text = CliRunner().invoke(cli.main, ["--help"]).output
    assert "--sweep-interval" not in help_text


@pytest.mark.parametrize(
    "args",
    [
        ("--sweep-interval", "2", "--requeue-stalled-interval", "3"),
        ("--tick-interval", "2", "--requeue-stalled-interval", "3"),
        ("--tick-interval", "5", "--sweep-interval", "3"),  # 5 is the default, but given
    ],
)
def test_cli_refuses_the_option_with_an_alias_or_both_aliases(fake_worker, args):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 2
    assert "give one" in result.output
    assert fake_worker == []


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("--tick-interval", "0.001"), "--tick-interval"),
        (("--tick-interval", "0.09"), "--tick-interval"),
        (("--requeue-stalled-interval", "0.001"), "--requeue-stalled-interval"),
        (("--sweep-interval", "0.05"), "--sweep-interval"),
    ],
)
def test_cli_refuses_an_interval_between_0_and_a_tenth_of_a_second(fake_worker, args, name):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 2
    assert f"Invalid value for {name}: " in result.output
    assert "is too short: give 0 (never tick) or at least 0.1 s" in result.output
    assert fake_worker == []

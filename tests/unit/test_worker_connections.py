"""Connections under pressure, without a database: the backoff's jitter, which errors mean
"no connection", the outage log (one WARNING, one INFO, DEBUG in between), and the pool
idle option from the command line to the config.
"""

from __future__ import annotations

import logging

import psycopg
import pytest
from click.testing import CliRunner
from psycopg import errors
from psycopg_pool import PoolTimeout

import pgflow.cli.worker as cli
from pgflow.worker.config import Backoff, WorkerConfig
from pgflow.worker.outage import (
    CONNECTION_LIMIT_HINT,
    Outage,
    is_connection_error,
    is_connection_limit,
)

FLOW = "tests.integration.flows.basic:chain"
TOO_MANY = psycopg.OperationalError(
    'connection failed: connection to server at "127.0.0.1", port 5432 failed: '
    "FATAL:  sorry, too many clients already"
)


# ---------------------------------------------------------------- backoff


@pytest.mark.parametrize("draw", [0.0, 0.5, 0.999])
def test_jittered_backoff_stays_around_each_step_and_never_passes_the_cap(draw):
    backoff = Backoff(cap_seconds=3, jitter=0.2, rng=lambda: draw)
    steps = [0.5, 1, 2, 3, 3, 3]
    delays = [backoff.next_delay() for _ in steps]
    for delay, step in zip(delays, steps, strict=True):
        assert step * 0.8 <= delay <= min(step * 1.2, 3)
    if draw == 0.5:  # the middle of the range is the step itself
        assert delays == pytest.approx(steps)
    backoff.reset()
    assert 0.4 <= backoff.next_delay() <= 0.6


def test_backoff_without_jitter_keeps_its_exact_steps():
    backoff = Backoff(cap_seconds=15)
    assert [backoff.next_delay() for _ in range(7)] == [0.5, 1, 2, 4, 8, 15, 15]


def test_jittered_delays_differ_between_workers():
    first, second = Backoff(15, jitter=0.2), Backoff(15, jitter=0.2)
    firsts = [first.next_delay() for _ in range(8)]
    seconds = [second.next_delay() for _ in range(8)]
    assert firsts != seconds  # equal 8 times in a row: about 0 chance with floats


# ---------------------------------------------------------------- what is a connection error


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (PoolTimeout("couldn't get a connection after 10.00 sec"), True),
        (psycopg.OperationalError("server closed the connection unexpectedly"), True),
        (TOO_MANY, True),
        (errors.TooManyConnections("too many connections for role"), True),
        (errors.AdminShutdown("terminating connection due to administrator command"), True),
        (errors.CannotConnectNow("the database system is starting up"), True),
        (errors.ConnectionFailure("connection failure"), True),
        (errors.QueryCanceled("canceling statement due to statement timeout"), False),
        (errors.LockNotAvailable("could not obtain lock"), False),
        (errors.UndefinedFunction("function pgflow.nope() does not exist"), False),
        (RuntimeError("bug"), False),
    ],
)
def test_connection_errors_are_told_from_statement_errors(exc, expected):
    assert is_connection_error(exc) is expected


def test_a_connection_limit_is_recognised_with_or_without_sqlstate():
    assert is_connection_limit(TOO_MANY)
    assert is_connection_limit(
        psycopg.OperationalError(
            "FATAL:  remaining connection slots are reserved for non-replication superuser "
            "connections"
        )
    )
    assert is_connection_limit(errors.TooManyConnections("x"))
    assert is_connection_limit(
        psycopg.OperationalError('FATAL:  too many connections for role "worker"')
    )
    assert not is_connection_limit(psycopg.OperationalError("Connection refused"))


# ---------------------------------------------------------------- the outage log


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _outage(clock: FakeClock, settle: float = 10.0) -> Outage:
    return Outage(
        started="no connection: {error}",
        ended="connections back",
        settle_seconds=settle,
        clock=clock,
    )


def _lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "pgflow.worker"]


def test_an_outage_logs_one_warning_then_one_info_with_the_count(caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    clock = FakeClock()
    outage = _outage(clock)
    assert outage.failed(TOO_MANY, retry_in_s=0.5) is True
    for _ in range(36):
        clock.now += 2
        assert outage.failed(PoolTimeout("couldn't get a connection")) is False
    assert outage.active and outage.failures == 37
    clock.now += 11
    assert outage.succeeded() == {"failures": 37, "outage_s": 83.0}
    assert not outage.active

    lines = _lines(caplog)
    warnings = [line for line in lines if line[0] == logging.WARNING]
    assert warnings == [(logging.WARNING, f"no connection: OperationalError: {TOO_MANY}")]
    assert [line for line in lines if line[0] == logging.INFO] == [
        (logging.INFO, "connections back")
    ]
    assert sum(level == logging.DEBUG for level, _ in lines) == 36
    (first,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert first.fields["hint"] == CONNECTION_LIMIT_HINT  # type: ignore[attr-defined]
    assert first.fields["retry_in_s"] == 0.5  # type: ignore[attr-defined]
    (back,) = [r for r in caplog.records if r.levelno == logging.INFO]
    assert back.fields == {"failures": 37, "outage_s": 83.0}  # type: ignore[attr-defined]


def test_a_failure_soon_after_a_success_stays_in_the_same_outage(caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    clock = FakeClock()
    outage = _outage(clock)
    outage.failed(psycopg.OperationalError("server closed the connection unexpectedly"))
    clock.now += 1
    assert outage.succeeded() is None  # 1 s after the failure: recovering, not over
    clock.now += 1
    assert outage.failed(psycopg.OperationalError("server closed the connection")) is False
    clock.now += 5
    assert outage.succeeded() is None
    assert outage.poll() is None  # 5 s since the last failure
    clock.now += 5
    assert outage.poll() == {"failures": 2, "outage_s": 7.0}
    assert outage.outages == 1
    assert [level for level, _ in _lines(caplog) if level > logging.DEBUG] == [
        logging.WARNING,
        logging.INFO,
    ]


def test_a_new_outage_after_the_end_is_logged_again(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    clock = FakeClock()
    outage = _outage(clock, settle=0)
    for _ in range(3):
        outage.failed(psycopg.OperationalError("Connection refused"))
        outage.failed(psycopg.OperationalError("Connection refused"))
        clock.now += 1
        assert outage.succeeded() == {"failures": 2, "outage_s": 1.0}
        assert outage.succeeded() is None  # nothing to end any more
    assert outage.outages == 3
    assert [level for level, _ in _lines(caplog)] == [logging.WARNING, logging.INFO] * 3


def test_successes_without_an_outage_log_nothing(caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    outage = _outage(FakeClock())
    assert [outage.succeeded() for _ in range(3)] == [None, None, None]
    assert outage.poll() is None
    assert _lines(caplog) == []


def test_an_outage_without_an_end_message_logs_only_its_start(caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    outage = Outage(started="listener down", ended=None, clock=FakeClock())
    outage.failed(TOO_MANY)
    assert outage.succeeded() == {"failures": 1, "outage_s": 0.0}
    assert [level for level, _ in _lines(caplog)] == [logging.WARNING]


# ---------------------------------------------------------------- --pool-max-idle


def test_idle_pool_connections_are_given_back_after_a_minute_by_default(fake_worker):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert (config.pool_max_idle_seconds, config.max_connections) == (60.0, 4)


def test_pool_max_idle_reaches_the_config(fake_worker):
    args = ["--pool-max-idle", "5", "--max-connections", "2"]
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", *args, FLOW])
    assert result.exit_code == 0, result.output
    (config,) = fake_worker
    assert (config.pool_max_idle_seconds, config.max_connections) == (5.0, 2)


@pytest.mark.parametrize("value", ["0", "0.5", "-1"])
def test_a_pool_max_idle_under_one_second_is_refused(fake_worker, value):
    result = CliRunner().invoke(cli.main, ["--dsn", "dbname=x", "--pool-max-idle", value, FLOW])
    assert result.exit_code == 2
    assert "--pool-max-idle" in result.output
    with pytest.raises(ValueError, match="pool_max_idle_seconds must be at least 1"):
        WorkerConfig(dsn="x", pool_max_idle_seconds=float(value))

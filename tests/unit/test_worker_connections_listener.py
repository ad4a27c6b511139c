"""The LISTEN connection under pressure, without a database: refused connections back off
(exponential, jittered, capped) and log once; a connection dropped right after it opened
does not restart the backoff; one that stayed up does, and its loss is a new outage.

``psycopg.AsyncConnection.connect`` and ``asyncio.sleep`` are replaced: connecting raises
or returns a connection that drops at once, and each sleep records its delay and returns.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import psycopg
import pytest

from pgflow.worker import notify
from pgflow.worker.notify import LOST, Listener
from pgflow.worker.outage import CONNECTION_LIMIT_HINT

CAP = 5.0
STEPS = [0.5, 1, 2, 4, CAP, CAP, CAP, CAP]
REFUSED = psycopg.OperationalError(
    'connection failed: connection to server at "127.0.0.1", port 5432 failed: '
    "FATAL:  sorry, too many clients already"
)
FAILED = "LISTEN connection failed; polling meanwhile"


class Done(Exception):
    """Raised by the fake sleep to end the listener after enough retries."""


class DroppedConnection:
    """A connection that takes the LISTEN statements and is lost when waiting for NOTIFY."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    async def __aenter__(self) -> DroppedConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def execute(self, statement: Any, params: Any = None) -> None:
        self.statements.append(str(statement))

    async def _lost(self) -> Any:
        raise psycopg.OperationalError("server closed the connection unexpectedly")
        yield  # an async generator that fails at its first step

    def notifies(self, timeout: float | None = None) -> Any:
        return self._lost()


def _run(monkeypatch: pytest.MonkeyPatch, connect: Any, retries: int = len(STEPS)) -> Listener:
    """Run a listener until it has waited ``retries`` times; return it."""
    real_sleep = asyncio.sleep
    woken: list[str] = []

    async def fake_connect(*args: Any, **kwargs: Any) -> Any:
        return connect()

    async def fake_sleep(delay: float) -> None:
        if len(listener.delays) >= retries:
            raise Done
        await real_sleep(0)

    monkeypatch.setattr(psycopg.AsyncConnection, "connect", fake_connect)
    monkeypatch.setattr(notify.asyncio, "sleep", fake_sleep)
    listener = Listener(
        dsn="dbname=x",
        application_name="pgflow-worker-listen:test",
        wakers={"flow_a": lambda: woken.append("flow_a")},
        poll_interval_seconds=1.0,
        reconnect_max_seconds=CAP,
    )
    with pytest.raises(Done):
        asyncio.run(asyncio.wait_for(listener.run(), 10))
    assert not listener.connected
    return listener


def _messages(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level]


def _backs_off(delays: list[float]) -> None:
    assert len(delays) == len(STEPS)
    for delay, step in zip(delays, STEPS, strict=True):
        assert step * 0.8 <= delay <= min(step * 1.2, CAP), delays


def test_refused_listen_connections_back_off_to_the_cap_and_log_once(monkeypatch, caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")

    def refuse() -> Any:
        raise REFUSED

    listener = _run(monkeypatch, refuse)
    _backs_off(listener.delays)
    assert listener.losses == 0
    assert _messages(caplog, logging.WARNING) == [FAILED]
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.fields["hint"] == CONNECTION_LIMIT_HINT  # type: ignore[attr-defined]
    assert warning.fields["retry_in_s"] == round(listener.delays[0], 3)  # type: ignore[attr-defined]
    assert len(_messages(caplog, logging.DEBUG)) == len(STEPS) - 1
    assert _messages(caplog, logging.INFO) == []


def test_a_listen_connection_dropped_at_once_keeps_backing_off(monkeypatch, caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    connections: list[DroppedConnection] = []

    def dropped() -> DroppedConnection:
        connections.append(DroppedConnection())
        return connections[-1]

    listener = _run(monkeypatch, dropped)
    _backs_off(listener.delays)  # not 0.5 s again and again: it never stayed up
    assert listener.losses == len(STEPS)
    assert all(c.statements == ['LISTEN "pgmq.q_flow_a.INSERT"'] for c in connections)
    assert _messages(caplog, logging.WARNING) == [LOST]
    infos = [r for r in caplog.records if r.getMessage() == "listening for queue notifications"]
    assert len(infos) == len(STEPS)
    # Each reconnection says how many losses the outage has had so far.
    assert [r.fields.get("failures") for r in infos] == [None, *range(1, len(STEPS))]  # type: ignore[attr-defined]


def test_a_listen_connection_lost_after_it_stayed_up_starts_over(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    monkeypatch.setattr(notify, "STABLE_AFTER_SECONDS", 0.0)
    listener = _run(monkeypatch, DroppedConnection)
    assert all(0.4 <= delay <= 0.6 for delay in listener.delays), listener.delays
    assert _messages(caplog, logging.WARNING) == [LOST] * len(STEPS)  # one outage each

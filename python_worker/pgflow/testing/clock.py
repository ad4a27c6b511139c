"""The test clock: move the engine's time forward from a test (``pgflow.advance_clock``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, LiteralString

import psycopg

_ADVANCE: Final[LiteralString] = "select pgflow.advance_clock(%(seconds)s::float8)"
_TICK: Final[LiteralString] = (
    "select fired_waits, requeued_tasks, expired_runs, started_queued_runs, released_tasks"
    " from pgflow.tick()"
)
_NOW: Final[LiteralString] = "select pgflow._now()"


@dataclass(frozen=True)
class TickResult:
    """What the ``pgflow.tick()`` after an advance did (counts).

    Attributes:
        fired_waits: waits whose deadline passed, fired (signal timeouts, timers).
        requeued_tasks: stalled tasks requeued (started longer ago than their timeout + 30 s).
        expired_runs: runs past their deadline, expired.
        started_queued_runs: queued runs started (a concurrency slot was free).
        released_tasks: messages held by ``max_in_flight`` made visible.
    """

    fired_waits: int
    requeued_tasks: int
    expired_runs: int
    started_queued_runs: int
    released_tasks: int


class TestClock:
    """The engine's clock of one test database (the ``pgflow_clock`` fixture).

    Every time the engine stores or compares (delays, backoff, timeouts, stalled-task
    detection, waits, timers, run deadlines, cron slots, heartbeats) comes from
    ``pgflow._now()``: the database clock plus how far tests moved it. Moving it also moves
    the flow queues' visibility times, so a task delayed by N seconds is due N seconds
    sooner. There is no way back: each test gets a fresh database.

    Args:
        dsn: the test database (``pgflow_dsn``).
    """

    __test__ = False  # not a test class, despite its name

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def now(self) -> datetime:
        """Return the engine's time (``pgflow._now()``), an aware datetime."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            now: datetime = _scalar(conn, _NOW)
        return now

    def advance(
        self, *, seconds: float = 0, minutes: float = 0, hours: float = 0, days: float = 0
    ) -> TickResult:
        """Move the engine's time forward, then run the maintenance a worker runs.

        ``pgflow.advance_clock`` moves the time; ``pgflow.tick()`` then does what became
        due, as a worker's next tick would: fires waits past their deadline (signal
        timeouts, timers), expires runs past their deadline, requeues stalled tasks,
        starts queued runs, releases held messages. Tasks whose delay or backoff ended are
        simply visible again: a worker (or :func:`~pgflow.testing.run_flow`) claims them.

        Args:
            seconds: seconds to add (fractions allowed).
            minutes: minutes to add.
            hours: hours to add.
            days: days to add. The four add up to a total that must be >= 0 (at most
                100 years).

        Returns:
            What the tick did (:class:`TickResult`).

        Raises:
            ValueError: a negative total (time does not go back).
        """
        total = seconds + 60 * minutes + 3600 * hours + 86400 * days
        if not total >= 0:
            raise ValueError(f"advance: the clock only moves forward (got {total} s)")
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(_ADVANCE, {"seconds": total})
            cur = conn.execute(_TICK)
            row = cur.fetchone()
        return TickResult(*row) if row else TickResult(0, 0, 0, 0, 0)


def _scalar(conn: psycopg.Connection[Any], query: LiteralString) -> Any:
    row = conn.execute(query).fetchone()
    return None if row is None else row[0]

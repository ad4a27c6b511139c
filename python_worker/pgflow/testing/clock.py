"""The test clock: move the engine's time forward from a test (``pgflow.advance_clock``)."""

from __future__ import annotations

from datetime import datetime
from typing import Final, LiteralString

import psycopg

from pgflow.client.queries import ENGINE_TIME
from pgflow.worker.queries import TICK
from pgflow.worker.tick import DEFAULT_MAX_RUNS, TickResult

#: Move the engine's time forward by ``seconds`` (run_flow moves it too).
ADVANCE: Final[LiteralString] = "select pgflow.advance_clock(%(seconds)s::float8)"


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
            row = conn.execute(ENGINE_TIME).fetchone()
        assert row is not None
        now: datetime = row[0]
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
            What the tick did (:class:`pgflow.worker.tick.TickResult`, as a worker's tick
            reports it: ``ran``, ``fired_waits``, ``requeued_tasks``, ``expired_runs``,
            ``started_queued_runs``, ``released_tasks``).

        Raises:
            ValueError: a negative total (time does not go back).
        """
        total = seconds + 60 * minutes + 3600 * hours + 86400 * days
        if not total >= 0:
            raise ValueError(f"advance: the clock only moves forward (got {total} s)")
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(ADVANCE, {"seconds": total})
            row = conn.execute(TICK, {"max_runs": DEFAULT_MAX_RUNS}).fetchone()
        return TickResult.from_row(row)

"""The worker's periodic ``pgflow.tick()`` call: waits fire, runs expire, stalled tasks requeue.

``pgflow.tick()`` is the one maintenance call for what time alone decides (database clock):

- it fires the waits whose deadline has passed: a step waiting for a signal past its
  ``wait_timeout`` times out (its ``on_timeout`` applies), a timer step (``flow.sleep``)
  that is due completes, and their runs move on;
- it expires the runs (queued, started or paused) whose ``deadline`` has passed: status
  ``expired``, their unfinished work cancelled, their concurrency slots freed;
- it starts the queued runs whose concurrency key has a free slot that no release took
  (a safety net: a slot normally goes to the next queued run as it frees);
- it requeues stalled tasks (``pgflow.requeue_stalled_tasks()``): a task whose worker
  died on it stays ``started`` past its step's timeout + 30 s and is put back in the queue
  (up to 3 times; a task that stalls a fourth time is given up on: it fails and its step's
  ``when_exhausted`` applies);
- it makes visible the task messages a step's ``max_in_flight`` held back, one per free
  slot.

Every worker process calls it at start and then every ``tick_interval_seconds``
(``--tick-interval``, 5 s by default, so a wait fires or a run expires within about that
long after its deadline). One call fires the due waits of at most ``max_runs`` runs (100),
expires at most ``max_runs`` runs of each kind and starts the queued runs of at most
``max_runs`` keys; while a call reaches ``max_runs`` in fired waits, expired runs or
started queued runs (more may be due), the ticker calls again at once, up to
``max_rounds`` calls (10) per interval, so a backlog drains without waiting an interval
per hundred runs. The SQL takes a try advisory lock: one tick runs at a time across all workers,
a concurrent call returns at once having done nothing, so many workers cost nothing. A
pg_cron job may call it instead or as well (``pgflow.setup_tick_cron``). In upstream mode
(a database with upstream pgflow's SQL only, which has no ``tick``) the worker calls
nothing: upstream's own cron job requeues stalled tasks there.

The caller tolerates database loss (logged, tried again at the next tick) and never
decides anything from the worker's clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker import queries
from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields
from pgflow.worker.outage import is_connection_error

logger = logging.getLogger("pgflow.worker")

#: Runs whose due waits one ``pgflow.tick()`` call fires, at most (its ``max_runs``).
DEFAULT_MAX_RUNS: Final = 100


#: ``pgflow.tick()`` calls in a row, at most, before the ticker sleeps an interval.
DEFAULT_MAX_ROUNDS: Final = 10


@dataclass(frozen=True)
class TickResult:
    """What one ``pgflow.tick()`` call did.

    Attributes:
        ran: False when another tick held the lock (nothing was done by this call).
        fired_waits: waits fired: signal waits timed out, timers due (or unreadable).
        requeued_tasks: stalled tasks put back in the queue.
        expired_runs: runs expired because their deadline passed (queued, started or
            paused ones).
        started_queued_runs: queued runs started because their key had a free slot.
        released_tasks: task messages made visible that ``max_in_flight`` held back.
    """

    ran: bool
    fired_waits: int
    requeued_tasks: int
    expired_runs: int = 0
    started_queued_runs: int = 0
    released_tasks: int = 0

    @classmethod
    def from_row(cls, row: tuple[Any, ...] | None) -> TickResult:
        """Build from a :data:`pgflow.worker.queries.TICK` row (None or NULL counts: zeros)."""
        if row is None:
            return cls(False, 0, 0)
        ran, fired, requeued, expired, started, released = row
        return cls(
            ran=bool(ran),
            fired_waits=int(fired or 0),
            requeued_tasks=int(requeued or 0),
            expired_runs=int(expired or 0),
            started_queued_runs=int(started or 0),
            released_tasks=int(released or 0),
        )

    @property
    def acted(self) -> bool:
        """True when the tick changed something (fired, requeued, expired, started, released)."""
        return any(
            (
                self.fired_waits,
                self.requeued_tasks,
                self.expired_runs,
                self.started_queued_runs,
                self.released_tasks,
            )
        )

    def reached(self, max_runs: int) -> bool:
        """True when a bound of ``max_runs`` was reached: more may be due at once.

        Fired waits, expired runs or started queued runs of ``max_runs`` or more (a run
        may have several due waits; expiry takes ``max_runs`` of each kind).
        """
        return max(self.fired_waits, self.expired_runs, self.started_queued_runs) >= max_runs


class Ticker:
    """Call ``pgflow.tick()`` at start and every ``interval_seconds``, more while work piles up.

    Each interval starts a round (:meth:`tick_round`): ``pgflow.tick(max_runs)`` again at
    once while a call fired ``max_runs`` waits or more, or expired or started that many
    runs (:meth:`TickResult.reached`), at most ``max_rounds`` calls.

    A call that requeued stalled tasks is logged at WARNING with how many and which (up to
    20, read by :data:`pgflow.worker.queries.LATEST_REQUEUED_TASKS`), and counted in the
    worker's metrics.
    After each call, tasks left permanently stalled and still started (by versions before
    0.2.0, which did not apply ``when_exhausted`` to them) are logged as an error, once per
    process, so a run that can no longer finish by itself does not hang silently; they stay
    listed in the view ``pgflow.permanently_stalled_tasks`` until resolved with
    ``pgflow.fail_task`` or ``pgflow.complete_task``.

    Args:
        pool: the worker's connection pool (one connection per call, returned at once).
        interval_seconds: seconds between two rounds (> 0; the worker does not create a
            ticker when the setting is 0).
        max_runs: ``pgflow.tick``'s ``max_runs`` (>= 1): runs whose due waits one call
            fires, runs of each kind it expires, keys whose queued runs it starts, at most.
        max_rounds: calls per round, at most (>= 1).
        on_requeued: called with the number of stalled tasks a call requeued, when some
            were (the worker's metrics).

    Raises:
        ValueError: ``max_runs`` or ``max_rounds`` is below 1.
    """

    def __init__(
        self,
        *,
        pool: AsyncConnectionPool,
        interval_seconds: float,
        max_runs: int = DEFAULT_MAX_RUNS,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        on_requeued: Callable[[int], None] | None = None,
    ) -> None:
        if max_runs < 1 or max_rounds < 1:
            raise ValueError(f"max_runs and max_rounds must be >= 1, got {max_runs}, {max_rounds}")
        self._pool = pool
        self._interval_seconds = interval_seconds
        self._max_runs = max_runs
        self._max_rounds = max_rounds
        self._on_requeued = on_requeued
        #: Latest permanently_stalled_at already reported (database time; None: none yet).
        self._stalled_reported_until: Any = None
        #: Waits fired by this process's calls, in total.
        self.fired = 0
        #: Tasks requeued by this process's calls, in total.
        self.requeued = 0
        #: Runs expired by this process's calls, in total.
        self.expired = 0
        #: Queued runs started by this process's calls, in total.
        self.started_queued = 0

    async def run(self) -> None:
        """Tick a round now and every ``interval_seconds`` until cancelled.

        Never raises: a database error is logged as a warning (at DEBUG when it means no
        connection: the pool logs such an outage once), any other exception as an error with
        its traceback (the round ends there), and the next round tries again.
        """
        while True:
            try:
                await self.tick_round()
            except (psycopg.Error, PoolTimeout) as exc:
                # No connection: the pool logs the outage once (pgflow.worker.outage).
                level = logging.DEBUG if is_connection_error(exc) else logging.WARNING
                logger.log(level, "tick failed", extra=fields(error=error_text(exc)))
            except Exception as exc:  # a timer never dies: log and try again next time
                logger.error(
                    "tick failed unexpectedly",
                    exc_info=exc,
                    extra=fields(error=error_text(exc)),
                )
            await asyncio.sleep(self._interval_seconds)

    async def tick_round(self) -> list[TickResult]:
        """Call :meth:`tick_once` until what is due is all done, ``max_rounds`` calls at most.

        A call that reached no bound (fewer than ``max_runs`` waits fired, runs expired
        and queued runs started), or did not run (another tick held the lock: that one
        covers it), ends the round; one that reached ``max_runs`` may have left work
        behind, so the next call follows at once.

        Returns:
            What each call did, in order (1 to ``max_rounds`` results).

        Raises:
            psycopg.Error: the database failed a call (those before it stay done).
            PoolTimeout: no pooled connection became free in time.
        """
        results: list[TickResult] = []
        for _ in range(self._max_rounds):
            result = await self.tick_once()
            results.append(result)
            if not result.ran or not result.reached(self._max_runs):
                return results
        logger.info(
            "every tick of the round reached max_runs: more may be due, next interval",
            extra=fields(calls=len(results), max_runs=self._max_runs),
        )
        return results

    async def tick_once(self) -> TickResult:
        """Call ``pgflow.tick(max_runs)`` once, log what it did, report new permanent stalls.

        Returns:
            What the call did (``ran`` False and zeros when another tick held the lock).

        Raises:
            psycopg.Error: the database failed the call (connection lost, no privilege).
            PoolTimeout: no pooled connection became free in time.
        """
        async with self._pool.connection() as conn:
            cur = await conn.execute(queries.TICK, {"max_runs": self._max_runs})
            result = TickResult.from_row(await cur.fetchone())
            if result.fired_waits:
                self.fired += result.fired_waits
                logger.info("waits fired", extra=fields(fired_waits=result.fired_waits))
            # One line per kind. The queued runs that an expiry's freed slots started are
            # in neither count: they start inside the expiry, as at any release of a slot;
            # started_queued_runs counts only the tick's own safety-net starts.
            if result.expired_runs:
                self.expired += result.expired_runs
                logger.info(
                    "tick expired runs past their deadline",
                    extra=fields(expired_runs=result.expired_runs),
                )
            if result.started_queued_runs:
                self.started_queued += result.started_queued_runs
                logger.info(
                    "tick started queued runs whose slot was free",
                    extra=fields(started_queued_runs=result.started_queued_runs),
                )
            if result.requeued_tasks:
                self.requeued += result.requeued_tasks
                if self._on_requeued is not None:
                    self._on_requeued(result.requeued_tasks)
                await self._log_requeued(conn, result.requeued_tasks)
            await self._report_permanently_stalled(conn)
        return result

    async def _log_requeued(self, conn: Any, requeued: int) -> None:
        """Log a requeue at WARNING: how many tasks, and which (up to 20) when known."""
        tasks: Any = None
        try:
            cur = await conn.execute(queries.LATEST_REQUEUED_TASKS)
            row = await cur.fetchone()
        except psycopg.Error as exc:  # the count alone then: the requeue itself is done
            logger.debug("requeued tasks not read", extra=fields(error=error_text(exc)))
        else:
            if row and row[0] == requeued:
                tasks = row[1]
        extra = {"tasks": tasks} if tasks else {}
        logger.warning("stalled tasks requeued", extra=fields(requeued=requeued, **extra))

    async def _report_permanently_stalled(self, conn: Any) -> None:
        cur = await conn.execute(
            queries.NEW_PERMANENTLY_STALLED, {"since": self._stalled_reported_until}
        )
        row = await cur.fetchone()
        if not row or not row[0]:
            return
        stalled, latest, sample = row
        self._stalled_reported_until = latest
        logger.error(
            "tasks permanently stalled: their worker died on them repeatedly and they are "
            "no longer requeued; their runs cannot finish until each is resolved with "
            "pgflow.fail_task or pgflow.complete_task (view pgflow.permanently_stalled_tasks)",
            extra=fields(permanently_stalled=int(stalled), tasks=sample),
        )

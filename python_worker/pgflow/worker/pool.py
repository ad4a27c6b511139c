"""The worker's connection pool: its bounds, idle shrinking and connection outage logging.

One :class:`WorkerPool` per worker process serves every statement the worker sends (reads,
reports, heartbeat, tick, cancellation check, run inputs, step signals). It holds between
:data:`MIN_SIZE` and ``max_size`` connections: the first stays open (the poll uses it every
``poll_interval_seconds``), more are opened only while a statement waits for a connection,
and one of those is closed per ``max_idle`` seconds during which the pool always had an
idle connection (psycopg_pool's ``max_idle``), so a pool grown by a burst shrinks back.
The LISTEN connection (:mod:`pgflow.worker.notify`) is not part of it.

Two :class:`~pgflow.worker.outage.Outage` records turn connection trouble into one WARNING
and one INFO line each, however many retries happen in between:

- ``checkouts``: a statement got no connection (the pool timeout passed: ``PoolTimeout``)
  or lost it (closed, server shutting down); over once statements get connections again
  and none failed for the pool timeout;
- ``connects``: the database refused a connection the pool tried to open (e.g. ``too many
  clients already``; the pool goes on with the ones it has); over once a new connection
  is accepted and none was refused for :data:`CONNECT_SETTLE_SECONDS`. psycopg_pool logs
  each refused attempt itself (``error connecting in '<pool name>'``): those records of
  this pool are counted here and dropped, so they do not print a line per retry (records
  it words differently pass through unchanged).

psycopg_pool retries a refused connection after 1, 2, 4, 8 s, ... for ``reconnect_seconds``
(the worker's ``reconnect_max_seconds``, 15 s) and then starts over when a statement waits,
so a worker refused while the server was full tries again within seconds once it is not,
instead of after minutes.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from pgflow.worker.outage import Outage, is_connection_error

#: Connections the pool keeps open however idle it is.
MIN_SIZE: Final = 1

#: Seconds without a refused connection before the database counts as accepting them
#: again. Long: on a full server the pool's attempts are refused and accepted by turns as
#: other clients come and go, which is one outage, not one per accepted connection.
CONNECT_SETTLE_SECONDS: Final = 60.0

#: Logger of psycopg_pool, whose per-attempt connection errors of our pool are counted.
PSYCOPG_POOL_LOGGER: Final = "psycopg.pool"
#: psycopg_pool's message of a refused connection attempt (args: pool name, error).
_CONNECT_ERROR: Final = "error connecting in %r: %s"
#: psycopg_pool's message when it stops retrying one connection (args: pool name, seconds).
_GAVE_UP: Final = "reconnection attempt in pool %r failed after %s sec"


class WorkerPool(AsyncConnectionPool[AsyncConnection[Any]]):
    """The worker's :class:`psycopg_pool.AsyncConnectionPool`, with outage logging.

    Created closed: call ``await pool.open(wait=False)``; ``close()`` closes it.

    Args:
        dsn: libpq connection string or URL.
        application_name: of every connection (``pgflow-worker:<id>`` in
            ``pg_stat_activity``); also the pool's name in psycopg_pool's logs.
        max_size: most connections open at once.
        max_idle_seconds: psycopg_pool's ``max_idle``: once per such period in which the
            pool always had an idle connection, one connection beyond :data:`MIN_SIZE`
            is closed.
        reconnect_seconds: psycopg_pool's ``reconnect_timeout``: how long it retries to
            open one connection (after 1, 2, 4, 8 s, ...) before starting over (a
            statement waiting makes it try again at once): so its attempts are at most
            about half of this apart.
        timeout_seconds: how long a statement waits for a connection before
            ``PoolTimeout``; also how long connections must work without a failure
            before a :attr:`checkouts` outage is logged as over (a :attr:`connects` one:
            :data:`CONNECT_SETTLE_SECONDS` without a refusal).
        prepare_threshold: psycopg's ``prepare_threshold`` (None: never prepare).
    """

    def __init__(
        self,
        dsn: str,
        *,
        application_name: str,
        max_size: int,
        max_idle_seconds: float,
        reconnect_seconds: float,
        timeout_seconds: float,
        prepare_threshold: int | None,
    ) -> None:
        #: Statements that got no connection, or lost it.
        self.checkouts = Outage(
            started="cannot get a database connection: {error}; retrying, "
            "logged again once connections work",
            ended="database connections work again",
            settle_seconds=timeout_seconds,
        )
        #: New connections the database refused.
        self.connects = Outage(
            started="the database refused a new connection: {error}; the pool retries "
            "with backoff (with the connections it has meanwhile), logged again once one "
            "is accepted",
            ended="the database accepts new connections again",
            settle_seconds=CONNECT_SETTLE_SECONDS,
        )
        super().__init__(
            dsn,
            min_size=MIN_SIZE,
            max_size=max_size,
            max_idle=max_idle_seconds,
            reconnect_timeout=reconnect_seconds,
            timeout=timeout_seconds,
            kwargs={
                "autocommit": True,
                "application_name": application_name,
                "prepare_threshold": prepare_threshold,
            },
            configure=self._connected,
            open=False,
            name=application_name,
        )
        self._refusals = _RefusedConnects(application_name, self.connects)
        logging.getLogger(PSYCOPG_POOL_LOGGER).addFilter(self._refusals)

    async def _connected(self, conn: AsyncConnection[Any]) -> None:
        """psycopg_pool's ``configure`` hook: a new connection was accepted."""
        self.connects.succeeded()

    @asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[AsyncConnection[Any]]:
        """A pooled connection, as psycopg_pool's; failures to get or keep it are recorded.

        Raises:
            PoolTimeout: no connection became free within ``timeout`` (default: the
                pool's); recorded in :attr:`checkouts`.
            psycopg.OperationalError: the connection was lost; recorded too.
        """
        try:
            async with super().connection(timeout) as conn:
                yield conn
        except Exception as exc:
            if is_connection_error(exc):
                self.checkouts.failed(exc)
            else:  # the database answered: a statement error is no connection trouble
                self._worked()
            raise
        self._worked()

    def _worked(self) -> None:
        self.checkouts.succeeded()
        self.connects.poll()

    async def close(self, timeout: float = 5.0) -> None:
        """Close the pool and its connections (waiting up to ``timeout`` seconds)."""
        try:
            await super().close(timeout)
        finally:
            logging.getLogger(PSYCOPG_POOL_LOGGER).removeFilter(self._refusals)


class _RefusedConnects(logging.Filter):
    """Count psycopg_pool's "error connecting" records of one pool, and drop them.

    Its "reconnection attempt ... failed" records of the pool are dropped too: the outage
    they belong to is logged already, and the pool tries again as soon as a statement waits.
    """

    def __init__(self, pool_name: str, outage: Outage) -> None:
        super().__init__()
        self._pool_name = pool_name
        self._outage = outage

    def filter(self, record: logging.LogRecord) -> bool:
        """Return False (drop) for a refused attempt of our pool, after recording it."""
        args = record.args
        if not isinstance(args, tuple) or len(args) != 2 or args[0] != self._pool_name:
            return True
        if record.msg == _GAVE_UP:
            return False
        if record.msg != _CONNECT_ERROR or not isinstance(args[1], BaseException):
            return True
        self._outage.failed(args[1])
        return False

"""The worker's pool facing a database it cannot reach (a closed local port, no server):
its refused connections and timed-out checkouts are logged once each, psycopg_pool's own
line per refused attempt is not printed, and closing the pool takes its log filter away.
"""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest
from psycopg_pool import PoolTimeout

from pgflow.worker.pool import PSYCOPG_POOL_LOGGER, WorkerPool

CHECKOUT = "cannot get a database connection: PoolTimeout"
REFUSED = "the database refused a new connection: OperationalError"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pool(name: str) -> WorkerPool:
    return WorkerPool(
        f"host=127.0.0.1 port={_closed_port()} dbname=nowhere user=nobody connect_timeout=1",
        application_name=name,
        max_size=2,
        max_idle_seconds=60,
        reconnect_seconds=1,
        timeout_seconds=0.3,
        prepare_threshold=None,
    )


def test_an_unreachable_database_is_logged_once_per_kind_not_per_attempt(caplog):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    caplog.set_level(logging.DEBUG, logger=PSYCOPG_POOL_LOGGER)
    pool = _pool("pgflow-worker:unit-a")
    timeouts = 0

    async def main() -> None:
        nonlocal timeouts
        await pool.open(wait=False)
        try:
            while pool.connects.failures < 3:  # attempts at 0, ~1 s and the give-up
                try:
                    async with pool.connection():
                        pytest.fail("a connection to a closed port")
                except PoolTimeout:
                    timeouts += 1
        finally:
            await pool.close()

    asyncio.run(asyncio.wait_for(main(), 20))
    assert timeouts >= 2 and pool.checkouts.failures == timeouts
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert sum(w.startswith(CHECKOUT) for w in warnings) == 1
    (refused,) = [w for w in warnings if w.startswith(REFUSED)]
    assert "Connection refused" in refused
    # psycopg_pool's "error connecting in ..." and "reconnection attempt ... failed" records
    # of this pool were counted and dropped, not printed.
    assert not [r for r in caplog.records if r.name == PSYCOPG_POOL_LOGGER and r.levelno >= 30]
    assert pool.checkouts.active and pool.connects.active  # never recovered
    assert logging.getLogger(PSYCOPG_POOL_LOGGER).filters == []


def test_the_filter_leaves_other_pools_records_alone(caplog):
    caplog.set_level(logging.WARNING, logger=PSYCOPG_POOL_LOGGER)
    pool = _pool("pgflow-worker:unit-b")
    other = logging.getLogger(PSYCOPG_POOL_LOGGER)
    try:
        other.warning("error connecting in %r: %s", "someone-else", OSError("refused"))
        other.warning("error connecting in %r: %s", "pgflow-worker:unit-b", OSError("refused"))
        other.warning("discarding broken connection: %s", "<conn>")
    finally:
        asyncio.run(pool.close())
    assert [r.getMessage() for r in caplog.records if r.name == PSYCOPG_POOL_LOGGER] == [
        "error connecting in 'someone-else': refused",
        "discarding broken connection: <conn>",
    ]
    assert pool.connects.failures == 1

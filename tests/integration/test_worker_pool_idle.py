"""The worker's pool gives back what a burst opened, and works within a connection limit.

- The pool itself (:class:`pgflow.worker.pool.WorkerPool` on the test database): grown to
  3 connections, it shrinks back to 1 once idle for ``max_idle``; a lost connection is
  logged once, and that it works again once; a statement error is no connection trouble.
- A real worker process: a burst of concurrent reports grows its pool, which is back to 1
  connection after the burst (``--pool-max-idle 1``); under a role limited to 2
  connections (``CONNECTION LIMIT 2``), the refused connections are logged once, not
  once per attempt, and the run completes.

Connections are counted in ``pg_stat_activity`` by ``application_name``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pgflow.worker.pool import WorkerPool
from tests.integration.worker_harness import (
    backend_counts,
    start_flow,
    wait_for,
    wait_run,
    worker_rows,
)

BURST = ("--max-concurrency", "8", "--complete-batch-size", "1", "--max-connections", "4")


def _pool(dsn: str, name: str, max_size: int = 3) -> WorkerPool:
    return WorkerPool(
        dsn,
        application_name=name,
        max_size=max_size,
        max_idle_seconds=1,
        reconnect_seconds=5,
        timeout_seconds=0.5,
        prepare_threshold=None,
    )


def _count(conn: psycopg.Connection, name: str) -> int:
    return backend_counts(conn, name).get(name, 0)


async def _wait_count(conn: psycopg.Connection, name: str, wanted: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _count(conn, name) != wanted:
        if time.monotonic() > deadline:
            pytest.fail(
                f"{name}: {_count(conn, name)} connections, not {wanted}, after {timeout} s"
            )
        await asyncio.sleep(0.1)


def test_a_grown_pool_gives_back_its_idle_connections(pgflow_dsn, pgflow_conn):
    name = f"pgflow-worker:idle-{uuid.uuid4()}"
    pool = _pool(pgflow_dsn, name)

    async def hold(both: asyncio.Barrier) -> None:
        async with pool.connection() as conn:
            await conn.execute("select 1")
            await both.wait()  # all three checked out at once

    async def main() -> None:
        await pool.open(wait=True)
        try:
            assert _count(pgflow_conn, name) == 1
            barrier = asyncio.Barrier(3)
            await asyncio.gather(*(hold(barrier) for _ in range(3)))
            assert _count(pgflow_conn, name) == 3
            await _wait_count(pgflow_conn, name, 1, timeout=20)
            async with pool.connection() as conn:  # the one kept still works
                await conn.execute("select 1")
        finally:
            await pool.close()

    asyncio.run(main())
    # closed: the server ends the backend a moment after the client hung up
    wait_for(lambda: _count(pgflow_conn, name) == 0, what="the pool's backends to end")


def test_a_lost_connection_is_logged_once_and_its_recovery_once(pgflow_dsn, pgflow_conn, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    name = f"pgflow-worker:lost-{uuid.uuid4()}"
    pool = _pool(pgflow_dsn, name, max_size=1)

    async def main() -> None:
        await pool.open(wait=True)
        try:
            pgflow_conn.execute(
                "select pg_terminate_backend(pid) from pg_stat_activity "
                "where application_name = %s",
                (name,),
            )
            with pytest.raises(psycopg.OperationalError):
                async with pool.connection() as conn:
                    await conn.execute("select 1")
            assert pool.checkouts.active
            with pytest.raises(psycopg.errors.DivisionByZero):  # an answer: no connection trouble
                async with pool.connection() as conn:
                    await conn.execute("select 1 / 0")
            assert pool.checkouts.active  # recovering: 0.5 s without failure first
            await asyncio.sleep(0.6)
            async with pool.connection() as conn:
                await conn.execute("select 1")
            assert not pool.checkouts.active
        finally:
            await pool.close()

    asyncio.run(main())
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "pgflow.worker"]
    assert [level for level, _ in lines] == ["WARNING", "INFO"], lines
    assert lines[0][1].startswith("cannot get a database connection: AdminShutdown: terminating")
    assert lines[1][1] == "database connections work again"


def test_a_worker_pool_grown_by_a_burst_shrinks_back(pgflow_conn, pgflow_dsn, start_worker):
    worker = start_worker("control:sleepers", *BURST, "--pool-max-idle", "1")
    worker.wait_running()
    name = f"pgflow-worker:{worker_rows(pgflow_conn, 'sleepers')[0]['worker_id']}"
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
            while not done.is_set():
                peak = max(peak, _count(conn, name))
                time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        run_id = start_flow(pgflow_conn, "sleepers", [0.3] * 16)
        assert wait_run(pgflow_conn, run_id, timeout=60)["status"] == "completed"
    finally:
        done.set()
        sampler.join()
    assert 2 <= peak <= 4  # the burst made the pool grow, within --max-connections
    wait_for(lambda: _count(pgflow_conn, name) == 1, timeout=30, what="the pool to shrink to 1")
    serving = worker.wait_log("serving flows")
    assert (serving["connection_budget"], serving["pool_max_idle_s"]) == (5, 1.0)


def test_a_worker_at_its_role_connection_limit_logs_it_once_and_completes(
    pgflow_conn, pgflow_dsn, start_worker
):
    role = f"limited_{uuid.uuid4().hex[:12]}"
    pgflow_conn.execute(f"create role {role} login connection limit 2 in role pgflow_worker")
    worker = None
    try:
        worker = start_worker(
            "control:sleepers", *BURST, "--no-listen", dsn=make_conninfo(pgflow_dsn, user=role)
        )
        worker.wait_running()
        run_id = start_flow(pgflow_conn, "sleepers", [0.2] * 16)
        assert wait_run(pgflow_conn, run_id, timeout=60)["status"] == "completed"
        refused = [
            entry
            for entry in worker.logs()
            if entry.get("msg", "").startswith("the database refused a new connection")
        ]
        assert len(refused) == 1, refused  # once, however many attempts were refused
        assert 'too many connections for role "' + role in refused[0]["error"]
        assert "max_connections" in refused[0]["hint"]
        assert "error connecting in" not in worker.text()  # psycopg_pool's line per attempt
    finally:
        if worker is not None:
            worker.stop()
        pgflow_conn.execute(f"drop role {role}")

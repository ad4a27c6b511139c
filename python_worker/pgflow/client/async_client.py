"""Start runs and follow them from async code (FastAPI, aiohttp, ...): :class:`AsyncClient`.

The same verbs as :class:`~pgflow.client.Client`, sending the same statements
(:mod:`pgflow.client.queries`, through the plans of :mod:`pgflow.client.plans`), on
psycopg's async connections. By default the client keeps its own small connection pool,
so one client serves every request of an app::

    from pgflow import AsyncClient

    client = AsyncClient("postgresql://app@db/app")       # at startup; nothing connects yet

    async def start_report(params: dict) -> str:          # in a request handler
        run = await client.start_flow("report", params)
        return run.run_id

    await client.close()                                   # at shutdown

or ``async with AsyncClient(dsn) as client: ...``. An app that has a pool already passes it
(``pool=``); one connection may be passed too (``connection=``). The run-control verbs
come from :class:`~pgflow.client.async_control.AsyncRunControl`, ``send_signal`` and
``get_run_waits`` from :class:`~pgflow.client.async_signals.AsyncSignals`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool

from pgflow.client import plans
from pgflow.client.async_control import AsyncRunControl
from pgflow.client.async_signals import AsyncSignals
from pgflow.client.plans import HasSlug, Plan
from pgflow.client.records import Run, RunState
from pgflow.client.start_options import Deadline
from pgflow.client.start_records import RunDeadline, RunSlot, StartedRun
from pgflow.dsn import resolve_dsn

T = TypeVar("T")

Connection = psycopg.AsyncConnection[Any]


class AsyncClient(AsyncRunControl, AsyncSignals):
    """Start pgflow runs and read their state from async code.

    Args:
        dsn: libpq connection string or URL of the client's own pool; None takes
            ``PGFLOW_DATABASE_URL``, then ``DATABASE_URL``, then the dev cluster if it is
            running (it is never started from here: run ``pgflow dev up``).
        pool: an :class:`psycopg_pool.AsyncConnectionPool` to borrow connections from
            instead (the caller opens and closes it; the client leaves it open).
        connection: one open :class:`psycopg.AsyncConnection` to use instead (autocommit
            recommended; concurrent calls then wait for each other; it is left open).
        max_connections: size of the client's own pool (it opens on first use, keeps one
            connection at least, and connects with autocommit).

    Raises:
        ValueError: both ``pool`` and ``connection`` were given, or ``max_connections``
            is below 1.
        DevClusterNotRunning: no database given or configured, and the dev cluster is not
            running.
        NoDatabaseConfigured: no database given or configured, and the dev cluster is
            turned off (``PGFLOW_DEV_CLUSTER=off``) or cannot be asked.
    """

    def __init__(
        self,
        dsn: str | None = None,
        *,
        pool: AsyncConnectionPool[Any] | None = None,
        connection: Connection | None = None,
        max_connections: int = 4,
    ) -> None:
        if pool is not None and connection is not None:
            raise ValueError("give AsyncClient a pool or a connection, not both")
        if max_connections < 1:
            raise ValueError(f"max_connections must be positive, got {max_connections}")
        self._pool = pool
        self._conn = connection
        self._max_connections = max_connections
        given = pool is not None or connection is not None
        self._dsn = None if given else resolve_dsn(dsn)
        self._own_pool: AsyncConnectionPool[Any] | None = None

    # ------------------------------------------------------------------ connections
    def _pool_to_use(self) -> AsyncConnectionPool[Any]:
        if self._pool is not None:
            return self._pool
        if self._own_pool is None:
            assert self._dsn is not None
            self._own_pool = AsyncConnectionPool(
                self._dsn,
                min_size=1,
                max_size=self._max_connections,
                kwargs={"autocommit": True},
                open=False,
                name="pgflow-client",
            )
        return self._own_pool

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        if self._conn is not None:
            yield self._conn
            return
        pool = self._pool_to_use()
        if pool is self._own_pool:
            await pool.open()  # a no-op once open
        async with pool.connection() as conn:
            yield conn

    async def open(self) -> None:
        """Open the client's own pool now (otherwise the first call opens it).

        Nothing happens for a client given a pool or a connection.
        """
        if self._pool is None and self._conn is None:
            await self._pool_to_use().open()

    async def close(self) -> None:
        """Close the client's own pool, if it has one (a later call opens a new one)."""
        pool, self._own_pool = self._own_pool, None
        if pool is not None:
            await pool.close()

    async def __aenter__(self) -> AsyncClient:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _run(self, plan: Plan[T]) -> T:
        statement = plans.first_statement(plan)  # argument errors before connecting
        async with self._connection() as conn:
            return await plans.run_async(conn, plan, statement)

    # ------------------------------------------------------------------ verbs
    async def start_flow(
        self,
        flow: str | HasSlug,
        input: Any,
        run_id: str | uuid.UUID | None = None,
        *,
        idempotency_key: str | None = None,
        concurrency_key: str | None = None,
        deadline: Deadline | None = None,
    ) -> StartedRun:
        """Start a run of a flow and return its state right after the start.

        As :meth:`pgflow.Client.start_flow`, which describes the options in full.

        Args:
            flow: the flow slug, or an object with a ``slug`` (a :class:`pgflow.dsl.Flow`);
                the flow must exist in the database.
            input: the run input, any JSON-serialisable value.
            run_id: a uuid of your choice for the run; random when None.
            idempotency_key: at most one run of the flow per key; a repeated start returns
                the first run with ``duplicate`` True and writes nothing.
            concurrency_key: the key whose slots (the flow's ``concurrency_limit``) the
                run takes; over the limit it is ``queued`` or refused (``on_limit``).
            deadline: an aware datetime, or a timedelta or seconds from the engine's time
                (``pgflow._now()``): the run expires if still unfinished then.

        Returns:
            The run with its step states, and ``duplicate``.

        Raises:
            FlowNotFound: the database has no such flow.
            RunAlreadyExists: ``run_id`` is taken.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent to the database).
            InvalidRunInput: ``input`` is not JSON-serialisable, not storable as jsonb,
                over ``pgflow.max_payload_bytes``, or not an array for a flow with a root
                map step (as for :meth:`pgflow.Client.start_flow`). Nothing is written.
            InvalidStartOption: a blank, too long or non-text key, or a deadline that is
                naive, not positive or past (database clock).
            ConcurrencyLimitReached: the limit for ``concurrency_key`` is reached and the
                flow's ``on_limit`` is ``reject`` (``holders``: the runs holding it).
            WrongIsolationLevel: a limited key outside a READ COMMITTED transaction.
        """
        return await self._run(
            plans.start_flow(
                flow,
                input,
                run_id,
                idempotency_key=idempotency_key,
                concurrency_key=concurrency_key,
                deadline=deadline,
            )
        )

    async def get_run(self, run_id: str | uuid.UUID) -> RunState:
        """Return a run and the state of each of its steps.

        Raises:
            RunNotFound: no run has this id (or it is not a uuid).
        """
        return await self._run(plans.get_run(run_id))

    async def get_run_slot(self, run_id: str | uuid.UUID) -> RunSlot | None:
        """Return where a run with a concurrency key stands; None for a run without key.

        As :meth:`pgflow.Client.get_run_slot`.

        Raises:
            RunNotFound: no run has this id.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return await self._run(plans.get_run_slot(run_id))

    async def engine_time(self) -> datetime:
        """Return the engine's time, ``pgflow._now()`` (as :meth:`pgflow.Client.engine_time`)."""
        return await self._run(plans.engine_time())

    async def get_run_deadline(self, run_id: str | uuid.UUID) -> RunDeadline | None:
        """Return a run's deadline and the seconds left on the database clock (None: none).

        As :meth:`pgflow.Client.get_run_deadline`.

        Raises:
            RunNotFound: no run has this id.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return await self._run(plans.get_run_deadline(run_id))

    async def wait_for_run(
        self,
        run_id: str | uuid.UUID,
        timeout_seconds: float = 60.0,
        *,
        poll_interval_seconds: float = 0.2,
    ) -> RunState:
        """Poll a run until it is finished, and return its final state.

        Finished: completed, failed, cancelled or expired (a queued run is waited for).
        Sleeps with :func:`asyncio.sleep` between reads, so the event loop stays free.

        Args:
            run_id: the run's uuid.
            timeout_seconds: how long to wait, in seconds (default 60).
            poll_interval_seconds: pause between two reads of the run (default 0.2 s).

        Raises:
            RunTimeout: the run was still unfinished after ``timeout_seconds``.
            RunNotFound: no run has this id.
        """
        deadline = time.monotonic() + timeout_seconds
        while True:
            state = await self.get_run(run_id)
            pause = plans.next_poll(state, deadline, timeout_seconds, poll_interval_seconds)
            if pause is None:
                return state
            await asyncio.sleep(pause)

    async def task_counts(self, run_id: str | uuid.UUID) -> dict[str, dict[str, int]]:
        """Return ``{step_slug: {task status: count}}`` for a run (steps without tasks absent)."""
        return await self._run(plans.task_counts(run_id))

    async def list_runs(
        self,
        *,
        flow_slug: str | None = None,
        status: str | None = None,
        limit: int = 20,
        step_slug: str | None = None,
        error_contains: str | None = None,
    ) -> list[Run]:
        """Return the latest runs (without step states), newest first.

        Args:
            flow_slug: only runs of this flow.
            status: only runs in this status (one of
                :data:`~pgflow.client.records.RUN_STATUSES`).
            limit: at most this many runs.
            step_slug: only runs whose step ``step_slug`` failed or has a failed attempt.
            error_contains: only runs with such an error containing this text
                (case-insensitive).
        """
        return await self._run(plans.list_runs(flow_slug, status, limit, step_slug, error_contains))

"""Lazy, per-run cache of run inputs for ``ctx.flow_input`` of non-root steps."""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker import queries
from pgflow.worker.config import Backoff


class RunInputCache:
    """Load ``pgflow.runs.input`` once per run through the pool, and share the result.

    Concurrent requests for one run wait on a single load. A failed load is not cached
    (the next request tries again). At most ``max_runs`` inputs are kept (least recently
    used dropped first).
    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        loop: asyncio.AbstractEventLoop,
        max_runs: int = 256,
        reconnect_max_seconds: float = 15.0,
    ) -> None:
        self._pool = pool
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._max_runs = max_runs
        self._reconnect_max_seconds = reconnect_max_seconds
        self._entries: OrderedDict[str, asyncio.Future[Any]] = OrderedDict()

    def source(self, run_id: str) -> RunInputSource:
        """Return the :class:`pgflow.context.FlowInputSource` of one run."""
        return RunInputSource(self, run_id)

    async def load(self, run_id: str) -> Any:
        """Return the input of run ``run_id`` (one query per run while cached)."""
        entry = self._entries.get(run_id)
        if entry is not None:
            self._entries.move_to_end(run_id)
            return await asyncio.shield(entry)
        entry = self._loop.create_future()
        self._entries[run_id] = entry
        while len(self._entries) > self._max_runs:
            self._entries.popitem(last=False)
        try:
            row = await self._query(run_id)
            if row is None:
                raise LookupError(f"run {run_id} not found")
            entry.set_result(row["input"])
        except BaseException as exc:
            self._entries.pop(run_id, None)
            if isinstance(exc, Exception):
                entry.set_exception(exc)
                entry.exception()  # mark retrieved: waiters re-raise it themselves
            else:
                entry.cancel()
            raise
        return entry.result()

    async def _query(self, run_id: str) -> dict[str, Any] | None:
        """Read the run input; retry while the database is unreachable.

        The handler waiting for it is under its task timeout, which bounds the retries.
        """
        backoff = Backoff(self._reconnect_max_seconds)
        while True:
            try:
                async with self._pool.connection() as conn:
                    cur = conn.cursor(row_factory=dict_row)
                    await cur.execute(queries.RUN_INPUT, {"run_id": run_id})
                    return await cur.fetchone()
            except (psycopg.OperationalError, PoolTimeout):
                await asyncio.sleep(backoff.next_delay())

    def cached(self, run_id: str) -> tuple[bool, Any]:
        """Return ``(True, input)`` when the run's input is loaded, else ``(False, None)``."""
        entry = self._entries.get(run_id)
        if entry is not None and entry.done() and not entry.cancelled() and not entry.exception():
            return True, entry.result()
        return False, None

    def load_blocking(self, run_id: str) -> Any:
        """Return run ``run_id``'s input from a thread other than the event loop's."""
        if threading.get_ident() == self._loop_thread:
            found, value = self.cached(run_id)
            if found:
                return value
            raise RuntimeError(
                "ctx.flow_input blocks; in an async handler use `await ctx.get_flow_input()`"
            )
        return asyncio.run_coroutine_threadsafe(self.load(run_id), self._loop).result()


class RunInputSource:
    """The flow input of one run, served by a :class:`RunInputCache`."""

    def __init__(self, cache: RunInputCache, run_id: str) -> None:
        self._cache = cache
        self._run_id = run_id

    async def get(self) -> Any:
        """Return the run input (loaded on first use)."""
        return await self._cache.load(self._run_id)

    def get_blocking(self) -> Any:
        """Return the run input from a handler thread."""
        return self._cache.load_blocking(self._run_id)

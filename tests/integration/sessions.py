"""Sessions that race: a call on its own connection in a thread, and whether it finished or
waits for a lock (read from pg_stat_activity, never guessed from a sleep).

A race test holds one transaction open in the test's own session, starts the other call
with :class:`Background`, waits with :func:`wait_until_done_or_blocked` until that call
either finished or waits for a lock, and only then commits (or rolls back) the first.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg


class Background:
    """Run one function on its own connection in a thread; keep its result or error."""

    def __init__(self, conn: psycopg.Connection, fn: Callable[[psycopg.Connection], Any]) -> None:
        self.conn = conn
        self.pid = conn.info.backend_pid
        self.result: Any = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[psycopg.Connection], Any]) -> None:
        try:
            self.result = fn(self.conn)
        except BaseException as exc:  # reported by join()
            self.error = exc

    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout_seconds: float = 30.0) -> Any:
        self._thread.join(timeout_seconds)
        assert not self._thread.is_alive(), "background session did not finish"
        if self.error is not None:
            raise self.error
        return self.result


def wait_until_done_or_blocked(
    observer: psycopg.Connection, job: Background, timeout_seconds: float = 10.0
) -> str:
    """Return 'done' when the job finished, 'blocked' when it waits for a lock."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if job.done():
            return "done"
        row = observer.execute(
            "select wait_event_type from pg_stat_activity where pid = %s", (job.pid,)
        ).fetchone()
        if row is not None and row[0] == "Lock":
            return "blocked"
        time.sleep(0.02)
    raise AssertionError("background session neither finished nor waited for a lock")


def connect(dsn: str, *, autocommit: bool) -> psycopg.Connection:
    conn = psycopg.connect(dsn, autocommit=autocommit)
    conn.execute("set statement_timeout = '30s'")
    if not autocommit:
        conn.commit()
    return conn

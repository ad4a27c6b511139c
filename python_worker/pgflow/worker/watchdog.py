"""Detect an event loop blocked by a handler: an ``async def`` that calls blocking code.

Everything the worker does runs on one asyncio loop: polling, heartbeats, reports, task
timeouts. An ``async def`` handler that calls ``time.sleep``, a blocking driver or heavy
CPU work without awaiting holds that loop: nothing else happens until it returns, and its
own timeout cannot fire (a timeout is a loop callback too). The loop cannot see this while
it happens, so a daemon thread watches it.

:class:`LoopWatchdog` keeps a callback ticking on the loop and checks the tick from its
thread. When the loop has not ticked for ``threshold_seconds`` it logs a warning naming
the task whose handler holds the loop (``asyncio.current_task`` of the loop at that
moment), once per blocking task, and logs again when the loop runs again, with how long
it was blocked. What the worker does about the blocked task itself is the
executor's job (a handler that overran its timeout fails with ``TimeoutError`` once it
returns).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")

#: Given the asyncio task that holds the loop (or None), return log fields naming it.
Describe = Callable[["asyncio.Task[Any] | None"], Mapping[str, Any]]


class LoopWatchdog:
    """Warn when the event loop is blocked for ``threshold_seconds`` or more.

    Args:
        loop: the worker's running loop.
        threshold_seconds: how long the loop may go without ticking before the warning.
        describe: returns the log fields of the blocking task (e.g. its run_id and step).
    """

    def __init__(
        self, loop: asyncio.AbstractEventLoop, threshold_seconds: float, describe: Describe
    ) -> None:
        if threshold_seconds <= 0:
            raise ValueError("threshold_seconds must be positive")
        self._loop = loop
        self._threshold = threshold_seconds
        self._period = min(threshold_seconds / 4, 0.25)
        self._describe = describe
        self._last_tick = time.monotonic()
        self._stopped = threading.Event()
        self._handle: asyncio.TimerHandle | None = None
        self._thread: threading.Thread | None = None
        #: Blocked episodes seen (for tests and diagnostics).
        self.episodes = 0

    def start(self) -> None:
        """Start ticking on the loop (call from the loop) and watching from a thread."""
        self._tick()
        self._thread = threading.Thread(
            target=self._watch, name="pgflow-loop-watchdog", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (call from the loop)."""
        self._stopped.set()
        if self._handle is not None:
            self._handle.cancel()

    def _tick(self) -> None:
        self._last_tick = time.monotonic()
        if not self._stopped.is_set():
            self._handle = self._loop.call_later(self._period, self._tick)

    def _watch(self) -> None:
        blocked_since: float | None = None
        blocker: object = None
        where: Mapping[str, Any] = {}
        while not self._stopped.wait(self._period):
            last = self._last_tick
            now = time.monotonic()
            if blocked_since is not None and last > blocked_since:
                logger.warning(
                    "event loop running again after being blocked",
                    extra=fields(**where, blocked_for_s=round(last - blocked_since, 1)),
                )
                blocked_since, blocker, where = None, None, {}
            if now - last < self._threshold:
                continue
            task = self._current_task()
            if blocked_since is not None and task is blocker:
                continue
            # A new blocked episode, or the next blocker in the same one (two handlers
            # blocking back to back never let the loop tick in between).
            if blocked_since is None:
                blocked_since = last
                self.episodes += 1
            blocker, where = task, self._fields(task)
            logger.warning(
                "event loop blocked: a handler is running blocking code in an async "
                "def (use a plain def, or await); heartbeats, polling, reports and "
                "task timeouts wait until it returns",
                extra=fields(**where, blocked_for_s=round(now - last, 1)),
            )

    def _current_task(self) -> asyncio.Task[Any] | None:
        try:
            return asyncio.current_task(self._loop)
        except RuntimeError:  # pragma: no cover - loop closed meanwhile
            return None

    def _fields(self, task: asyncio.Task[Any] | None) -> Mapping[str, Any]:
        try:
            return dict(self._describe(task))
        except Exception:  # never let diagnostics kill the watchdog
            return {}

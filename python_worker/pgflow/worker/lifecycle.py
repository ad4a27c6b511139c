"""Worker lifecycle: states, signals, and the drain of in-flight tasks.

States: ``created`` -> ``starting`` -> ``running`` -> ``stopping`` -> ``stopped``
(``starting`` may go straight to ``stopping`` when a signal arrives during startup).

SIGTERM / SIGINT (or deprecation of every worker row) -> ``stopping``: pollers stop
reading, ``ctx.shutdown`` is set for handlers, and in-flight tasks get
``shutdown_grace_seconds`` to finish and report. Tasks still running then are abandoned:
neither completed nor failed; their message reappears after its lease and
``pgflow.tick()`` (``requeue_stalled_tasks``) requeues the task once it is stalled. A second signal
abandons them at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import signal
import threading
from collections.abc import Iterable
from typing import Any

from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")


class WorkerState(enum.Enum):
    """Where a worker is in its life."""

    CREATED = "created"
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    STOPPED = "stopped"


_ALLOWED: dict[WorkerState, frozenset[WorkerState]] = {
    WorkerState.CREATED: frozenset({WorkerState.STARTING}),
    WorkerState.STARTING: frozenset({WorkerState.RUNNING, WorkerState.STOPPING}),
    WorkerState.RUNNING: frozenset({WorkerState.STOPPING}),
    WorkerState.STOPPING: frozenset({WorkerState.STOPPED}),
    WorkerState.STOPPED: frozenset(),
}


class Lifecycle:
    """State machine plus the events that carry a stop request.

    Attributes:
        state: the current :class:`WorkerState`.
        stop_requested: set (on the loop) when the worker must stop reading.
        abandon: set on a second signal: stop waiting for in-flight tasks.
        shutdown: a :class:`threading.Event` set with ``stop_requested``; handlers see it
            as ``ctx.shutdown``.
        stop_reason: why the stop was requested (``"SIGTERM"``, ``"deprecated"``, ...).
    """

    def __init__(self) -> None:
        self.state = WorkerState.CREATED
        self.stop_requested = asyncio.Event()
        self.abandon = asyncio.Event()
        self.shutdown = threading.Event()
        self.stop_reason: str | None = None

    def to(self, new: WorkerState) -> None:
        """Move to state ``new``.

        Raises:
            RuntimeError: the transition is not allowed.
        """
        if new not in _ALLOWED[self.state]:
            raise RuntimeError(f"worker cannot go from {self.state.value} to {new.value}")
        logger.info(f"worker {new.value}", extra=fields(state=new.value))
        self.state = new

    def request_stop(self, reason: str) -> None:
        """Ask the worker to stop reading and drain (idempotent; a repeat abandons)."""
        if self.stop_requested.is_set():
            if reason.startswith("SIG") and not self.abandon.is_set():
                logger.warning(
                    "second signal: abandoning in-flight tasks", extra=fields(reason=reason)
                )
                self.abandon.set()
            return
        self.stop_reason = reason
        logger.info("stop requested", extra=fields(reason=reason))
        self.stop_requested.set()
        self.shutdown.set()

    def install_signal_handlers(self, loop: asyncio.AbstractEventLoop) -> None:
        """Route SIGTERM and SIGINT to :meth:`request_stop`.

        Outside the main thread (or on a loop without signal support) nothing is
        installed: stop the worker with :meth:`request_stop` then.
        """
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, self.request_stop, sig.name)
            except (NotImplementedError, RuntimeError, ValueError):
                logger.debug("signal handlers not installed (not the main thread)")
                return

    def remove_signal_handlers(self, loop: asyncio.AbstractEventLoop) -> None:
        """Give SIGTERM and SIGINT back to their default handlers."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)


async def drain(
    tasks: Iterable[asyncio.Task[None]], grace_seconds: float, abandon: asyncio.Event
) -> int:
    """Wait for in-flight tasks up to ``grace_seconds`` (or until ``abandon`` is set).

    Tasks still running afterwards are cancelled without reporting anything.

    Returns:
        How many tasks were abandoned.
    """
    pending: set[asyncio.Future[Any]] = {t for t in tasks if not t.done()}
    if pending:
        logger.info(
            "draining in-flight tasks",
            extra=fields(in_flight=len(pending), grace_s=grace_seconds),
        )
        abandon_waiter = asyncio.ensure_future(abandon.wait())
        try:
            deadline = asyncio.get_running_loop().time() + grace_seconds
            while pending and not abandon.is_set():
                remaining = deadline - asyncio.get_running_loop().time()
                if remaining <= 0:
                    break
                _, pending = await asyncio.wait(
                    pending | {abandon_waiter}, timeout=remaining, return_when="FIRST_COMPLETED"
                )
                pending.discard(abandon_waiter)
        finally:
            abandon_waiter.cancel()
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=5)
        logger.warning(
            "in-flight tasks abandoned; requeue_stalled_tasks requeues them once they are stalled",
            extra=fields(abandoned=len(pending)),
        )
    return len(pending)

"""The context object a handler receives as its optional second argument."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True)
class Signal:
    """The signal a step waited for, as its handler sees it (``ctx.signal``).

    A step defined with ``@flow.step(wait_for="approved", ...)`` runs its handler once the
    wait ended: a signal of that name was sent to the run (``pgflow.send_signal``,
    ``Client.send_signal``, ``pgflow signal``) and the step took it, or the wait timed out
    with ``on_timeout="continue"``.

    Attributes:
        name: the signal's name (the awaited name after a timeout).
        payload: the JSON value sent with it (None when none was sent, as for JSON null;
            None after a timeout).
        received_at: when the database stored the signal (aware datetime, database clock);
            None after a timeout.
        timed_out: True when the wait timed out (``on_timeout="continue"``): no signal
            came in time, and ``payload`` and ``received_at`` are None.
    """

    name: str
    payload: Any
    received_at: datetime | None
    timed_out: bool


class FlowInputSource(Protocol):
    """Where a context gets the run input from (known at once, or loaded once per run)."""

    async def get(self) -> Any:
        """Return the run input (awaitable on the worker's event loop)."""
        ...

    def get_blocking(self) -> Any:
        """Return the run input from a handler thread (blocks that thread only)."""
        ...


class KnownFlowInput:
    """A flow input already in hand (root single steps receive it from ``start_tasks``)."""

    def __init__(self, value: Any) -> None:
        self._value = value

    async def get(self) -> Any:
        """Return the known run input."""
        return self._value

    def get_blocking(self) -> Any:
        """Return the known run input."""
        return self._value


@dataclass(frozen=True, kw_only=True)
class Context:
    """What a handler may know about the task it runs.

    Handlers declared as ``handler(input, ctx)`` receive one per task; ``handler(input)``
    handlers do not.

    Attributes:
        flow_slug: the flow of the run.
        run_id: the run (uuid, as text).
        step_slug: the step this task belongs to.
        task_index: 0 for single steps; the array element index for map tasks.
        attempt: which attempt this is, 1 for the first (``step_tasks.attempts_count``
            right after ``start_tasks`` claimed the task; the worker reads it back in the
            same transaction, so it is exact even after retries and stalled requeues).
            It counts on across ``retry_run``: after a retry of a run whose task used 3
            attempts, the next one is attempt 4, with a fresh budget of ``max_attempts``
            (compare with ``max_attempts`` only on a run never retried).
        worker_id: the ``pgflow.workers`` row serving this flow in this process (as text).
        raw_message: the pgmq message: ``msg_id``, ``read_ct``, ``enqueued_at``, ``vt``,
            ``message`` (``{flow_slug, run_id, step_slug, task_index}``), ``headers``.
        step_task: the ``pgflow.step_task_record`` returned by ``start_tasks``:
            ``flow_slug``, ``run_id``, ``step_slug``, ``input``, ``msg_id``, ``task_index``,
            ``flow_input``.
        shutdown: set when the worker starts shutting down (SIGTERM/SIGINT, deprecation).
            A :class:`threading.Event`, so sync handlers (in threads) and async handlers
            alike can check ``ctx.shutdown.is_set()`` and stop early.
        timeout_seconds: the task's timeout (step, else flow, else 60 s); the handler is
            cancelled (async) or abandoned (sync) after it and the task fails.
        cancelled: set when the worker learns that this task was cancelled while its
            handler runs: its run was cancelled (``pgflow.cancel_run``) or failed, or its
            step was skipped or completed by hand. The worker asks the database at every
            heartbeat (``--heartbeat-interval``, 5 s by default) while tasks run, so a
            handler learns it within about one interval. A :class:`threading.Event`: a
            sync handler (in its own thread, which nothing can stop) checks
            ``ctx.cancelled.is_set()`` and returns early; an ``async def`` handler is
            moreover cancelled (:class:`asyncio.CancelledError` is raised where it
            awaits). Whatever the handler returns or raises afterwards is discarded (SQL
            already closed the task and ignores a late report) and it is not an error: the
            worker logs ``result discarded: run cancelled`` (or ``run failed``, ``task
            cancelled``) once, at INFO. Never set in upstream mode.
        signal: for a step that waits for a signal before its handler runs
            (``@flow.step(wait_for=...)``), the signal it took, or a :class:`Signal` with
            ``timed_out=True`` when its wait timed out with ``on_timeout="continue"``;
            None for every other step (a step that does not wait costs no query).
    """

    flow_slug: str
    run_id: str
    step_slug: str
    task_index: int
    attempt: int
    worker_id: str
    raw_message: Mapping[str, Any]
    step_task: Mapping[str, Any]
    shutdown: threading.Event
    timeout_seconds: int
    flow_input_source: FlowInputSource = field(repr=False, compare=False)
    cancelled: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)
    signal: Signal | None = None

    @property
    def flow_input(self) -> Any:
        """The run input, for sync handlers (blocks the calling thread on the first load).

        Root single steps get it from ``start_tasks``; other steps load it from
        ``pgflow.runs`` once per run (cached, through the worker's connection pool).
        From an ``async def`` handler use ``await ctx.get_flow_input()`` instead: this
        property raises RuntimeError there unless the input is already at hand.
        """
        return self.flow_input_source.get_blocking()

    async def get_flow_input(self) -> Any:
        """Return the run input (for ``async def`` handlers); loaded once per run."""
        return await self.flow_input_source.get()

    @property
    def shutdown_requested(self) -> bool:
        """True once the worker is shutting down (same as ``ctx.shutdown.is_set()``)."""
        return self.shutdown.is_set()

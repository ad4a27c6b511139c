"""A task's attempts, rebuilt for the run page's timeline: queued, started, outcome.

The database keeps one row per task (its current attempt: when it started, how it ended)
and one event per attempt that failed (``task:failed``) or that the stalled-task sweep
took back (``task:requeued``), each with the attempt's number. :func:`attempts_of` puts the
two together into one :class:`Attempt` per attempt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class TaskView:
    """One task of the run and the worker that last ran it.

    Attributes:
        step_slug: its step.
        task_index: its index (0 for a single step).
        status: ``queued``, ``started``, ``completed``, ``failed`` or ``cancelled``.
        attempts_count: attempts started so far.
        error_message: the last attempt's error, else None.
        output: its output (None when redacted).
        queued_at: when it was first queued.
        started_at: when its current attempt started.
        ended_at: when it completed, failed or was cancelled.
        requeued_count: times the stalled-task sweep requeued it.
        worker_id: the worker that last claimed it (None: never claimed, or the worker
            row was deleted).
        worker_function: that worker's function name.
        worker_queue: that worker's queue.
    """

    step_slug: str
    task_index: int
    status: str
    attempts_count: int
    error_message: str | None
    output: Any
    queued_at: datetime
    started_at: datetime | None
    ended_at: datetime | None
    requeued_count: int
    worker_id: str | None
    worker_function: str | None
    worker_queue: str | None


@dataclass(frozen=True)
class Attempt:
    """One attempt of a task, for the timeline: queued, then started, then its outcome.

    Attributes:
        step_slug: the task's step.
        task_index: the task's index.
        attempt: the attempt's number (1 = first; a queued task waiting for its next
            attempt has the number that attempt will have).
        queued_at: when it was queued: the task's first queue time, or the end of the
            attempt before.
        started_at: when it started; None when unknown (an earlier attempt: the database
            keeps the start of the current attempt only) or not started.
        ended_at: when it ended; None while it runs or waits.
        outcome: ``completed``, ``failed`` (retried or not), ``requeued`` (the stalled-task
            sweep), ``cancelled``, ``running`` or ``queued``.
        error: the error of a failed attempt, else None.
    """

    step_slug: str
    task_index: int
    attempt: int
    queued_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None
    outcome: str
    error: str | None = None


def attempts_of(tasks: Sequence[TaskView], events: Sequence[Mapping[str, Any]]) -> list[Attempt]:
    """Rebuild each task's attempts from its row and its events.

    Each ``task:failed`` or ``task:requeued`` event (``details.attempt``) closes one attempt;
    the task row gives the current one (running, completed, cancelled, or queued for the
    next attempt). Events older than the task's ``queued_at`` belong to an earlier
    incarnation of the task (before ``retry_run`` recreated it) and are left out.

    Args:
        tasks: the tasks, in the order the attempts should come.
        events: rows with ``step_slug``, ``task_index``, ``event``, ``details`` (a dict with
            ``attempt`` and, for failures, ``error_message``) and ``created_at``, oldest
            first.

    Returns:
        The attempts, task by task, oldest first within a task.
    """
    by_task: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for event in events:
        by_task.setdefault((event["step_slug"], event["task_index"]), []).append(event)
    attempts: list[Attempt] = []
    for task in tasks:
        own: list[Attempt] = []
        since = task.queued_at
        for event in by_task.get((task.step_slug, task.task_index), []):
            if event["created_at"] < task.queued_at:
                continue
            details = event["details"] or {}
            failed = event["event"] == "task:failed"
            own.append(
                Attempt(
                    step_slug=task.step_slug,
                    task_index=task.task_index,
                    attempt=int(details.get("attempt") or len(own) + 1),
                    queued_at=since,
                    started_at=None,
                    ended_at=event["created_at"],
                    outcome="failed" if failed else "requeued",
                    error=details.get("error_message") if failed else None,
                )
            )
            since = event["created_at"]
        attempts.extend(_with_current(task, own, since))
    return attempts


def _with_current(task: TaskView, own: list[Attempt], since: datetime) -> list[Attempt]:
    """Add the task's current attempt (or its start time, to the attempt already closed)."""
    last = own[-1] if own else None
    current = task.attempts_count
    if last is not None and last.attempt == current and task.status in ("failed", "cancelled"):
        # The last attempt ended in the event that closed it; the row keeps its start.
        own[-1] = replace(last, started_at=task.started_at)
        return own
    base = Attempt(task.step_slug, task.task_index, current, since, task.started_at, None, "")
    if task.status == "started":
        own.append(replace(base, outcome="running"))
    elif task.status == "completed":
        own.append(replace(base, ended_at=task.ended_at, outcome="completed"))
    elif task.status == "cancelled":
        # Cancelled while queued: the attempt it waited for never started.
        number = current if task.started_at is not None else current + 1
        own.append(replace(base, attempt=number, ended_at=task.ended_at, outcome="cancelled"))
    elif task.status == "failed":
        own.append(
            replace(base, ended_at=task.ended_at, outcome="failed", error=task.error_message)
        )
    else:  # queued: for its first attempt, or the next one after a failure
        own.append(replace(base, attempt=current + 1, started_at=None, outcome="queued"))
    return own

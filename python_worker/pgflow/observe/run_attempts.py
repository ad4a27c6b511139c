"""A task's attempts, rebuilt for the run page's timeline: queued, started, outcome.

The database keeps one row per task (its current attempt: when it started, how it ended)
and one event per attempt that failed (``task:failed``) or that the stalled-task sweep
took back (``task:requeued``), each with the attempt's number. :func:`attempts_of` puts the
two together into one :class:`Attempt` per attempt, with:

- the attempts made before ``retry_run`` recreated the task (its events are older than the
  task row; they stay in the audit trail), marked ``before_retry``;
- the backoff before a retry: the attempt after a failed one is queued at once but its
  message only becomes visible ``floor(base_delay * 2^n)`` seconds later (``n``: the
  failed attempt's number counted from the retry budget's start,
  ``pgflow.calculate_retry_delay``), kept as ``retry_due_at``;
- a started attempt whose worker is dead or stopped: nobody will report it, the
  stalled-task sweep moves it on (outcome ``held``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final

#: The longest backoff drawn, in seconds (the SQL's delay is an int of seconds).
_MAX_DELAY_S: Final = 2**31 - 1


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
        queued_at: when it was first queued (since ``retry_run`` recreated it, if it did).
        started_at: when its current attempt started.
        ended_at: when it completed, failed or was cancelled.
        requeued_count: times the stalled-task sweep requeued it.
        worker_id: the worker that last claimed it (None: never claimed, or the worker
            row was deleted).
        worker_function: that worker's function name.
        worker_queue: that worker's queue.
        attempt_offset: attempts made before ``retry_run`` recreated the task (its retry
            budget counts from there).
        worker_dead: it is started and its worker is dead (no heartbeat for the dead
            threshold) or stopped: nobody will report it.
        worker_heartbeat_at: that worker's last heartbeat (None: no worker row).
        sweep_at: for a task held by a dead worker, when the stalled-task sweep acts on
            it (its start + the step's timeout + 30 s), else None.
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
    attempt_offset: int = 0
    worker_dead: bool = False
    worker_heartbeat_at: datetime | None = None
    sweep_at: datetime | None = None


@dataclass(frozen=True)
class Attempt:
    """One attempt of a task, for the timeline: queued, then started, then its outcome.

    Attributes:
        step_slug: the task's step.
        task_index: the task's index.
        attempt: the attempt's number (1 = first; a queued task waiting for its next
            attempt has the number that attempt will have).
        queued_at: when it was queued: the step's start for a first attempt, or the end
            of the attempt before; None when unknown.
        started_at: when it started; None when unknown (an earlier attempt: the database
            keeps the start of the current attempt only) or not started.
        ended_at: when it ended; None while it runs or waits.
        outcome: ``completed``, ``failed`` (retried or not), ``requeued`` (the stalled-task
            sweep), ``cancelled``, ``running``, ``held`` (started, its worker dead
            or stopped) or ``queued``.
        error: the error of a failed attempt, else None.
        retry_due_at: for an attempt after a failed one, when its retry was due (the end
            of the backoff: its message became visible); else None.
        before_retry: an attempt made before ``retry_run`` recreated the task.
        dead_since: for ``held``: the worker's last heartbeat.
    """

    step_slug: str
    task_index: int
    attempt: int
    queued_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None
    outcome: str
    error: str | None = None
    retry_due_at: datetime | None = None
    before_retry: bool = False
    dead_since: datetime | None = None


def retry_delay(base_delay: float, attempt: int, offset: int) -> timedelta:
    """The backoff after failed attempt ``attempt``: ``floor(base_delay * 2^(attempt - offset))``.

    Args:
        base_delay: the step's (else the flow's) ``base_delay``, in seconds.
        attempt: the failed attempt's number.
        offset: attempts made before the retry budget started (``attempt_offset``).

    Returns:
        The delay (at most 2^31 - 1 seconds, as the SQL's int).
    """
    exponent = max(attempt - offset, 0)
    seconds = _MAX_DELAY_S if exponent > 62 else base_delay * 2**exponent
    return timedelta(seconds=min(math.floor(seconds), _MAX_DELAY_S))


def attempts_of(
    tasks: Sequence[TaskView],
    events: Sequence[Mapping[str, Any]],
    *,
    retried_at: Sequence[datetime] = (),
    base_delays: Mapping[str, float] | None = None,
) -> list[Attempt]:
    """Rebuild each task's attempts from its row and its events.

    Each ``task:failed`` or ``task:requeued`` event (``details.attempt``) closes one attempt;
    the task row gives the current one (running, completed, cancelled, or queued for the
    next attempt). Events older than the task's ``queued_at`` belong to an earlier
    incarnation of the task (before ``retry_run`` recreated it): they are kept, marked
    ``before_retry``, the first of each incarnation queued when its step started then
    (``step:started`` events, ``task_index`` None).

    Args:
        tasks: the tasks, in the order the attempts should come.
        events: rows with ``step_slug``, ``task_index``, ``event``, ``details`` (a dict with
            ``attempt`` and, for failures, ``error_message`` and ``retry``) and
            ``created_at``, oldest first; ``step:started`` rows for the steps' starts.
        retried_at: when the run was retried (``run:retried`` events), oldest first:
            where one incarnation of a task ends and the next begins.
        base_delays: per step slug, its ``base_delay`` in seconds (step's, else flow's),
            for the backoff before each retry; a step left out gets none.

    Returns:
        The attempts, task by task, oldest first within a task.
    """
    by_task: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    starts: dict[str, list[datetime]] = {}
    for event in events:
        if event["event"] == "step:started":
            starts.setdefault(event["step_slug"], []).append(event["created_at"])
        elif event["task_index"] is not None:
            by_task.setdefault((event["step_slug"], event["task_index"]), []).append(event)
    delays = base_delays or {}
    attempts: list[Attempt] = []
    for task in tasks:
        own = by_task.get((task.step_slug, task.task_index), [])
        base = delays.get(task.step_slug)
        earlier = [e for e in own if e["created_at"] < task.queued_at]
        for group in _incarnations(earlier, retried_at):
            queued = _latest(starts.get(task.step_slug, ()), group[0]["created_at"])
            attempts.extend(_closed(task, group, queued, base, before_retry=True))
        current = [e for e in own if e["created_at"] >= task.queued_at]
        closed = _closed(task, current, task.queued_at, base, offset=task.attempt_offset)
        attempts.extend(_with_current(task, closed, current, base))
    return attempts


def _incarnations(
    events: Sequence[Mapping[str, Any]], retried_at: Sequence[datetime]
) -> list[list[Mapping[str, Any]]]:
    """Split a task's earlier events at each retry of the run."""
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for event in events:
        n = sum(1 for at in retried_at if at <= event["created_at"])
        groups.setdefault(n, []).append(event)
    return [groups[n] for n in sorted(groups)]


def _latest(times: Sequence[datetime], before: datetime) -> datetime | None:
    """The latest of ``times`` at or before ``before``, else None."""
    found = [at for at in times if at <= before]
    return max(found) if found else None


def _closed(
    task: TaskView,
    events: Sequence[Mapping[str, Any]],
    since: datetime | None,
    base_delay: float | None,
    *,
    offset: int | None = None,
    before_retry: bool = False,
) -> list[Attempt]:
    """One attempt per event (each closes one), queued when the one before ended.

    ``offset`` None: the attempts before the first one of ``events`` (an earlier
    incarnation's retry budget started there).
    """
    own: list[Attempt] = []
    due: datetime | None = None
    for event in events:
        details = event["details"] or {}
        failed = event["event"] == "task:failed"
        number = int(details.get("attempt") or len(own) + 1)
        if offset is None:
            offset = number - 1
        own.append(
            Attempt(
                step_slug=task.step_slug,
                task_index=task.task_index,
                attempt=number,
                queued_at=since,
                started_at=None,
                ended_at=event["created_at"],
                outcome="failed" if failed else "requeued",
                error=details.get("error_message") if failed else None,
                retry_due_at=due,
                before_retry=before_retry,
            )
        )
        since = event["created_at"]
        retried = failed and details.get("retry") is not False
        due = (
            since + retry_delay(base_delay, number, offset)
            if retried and base_delay is not None
            else None
        )
    return own


def _with_current(
    task: TaskView,
    own: list[Attempt],
    events: Sequence[Mapping[str, Any]],
    base_delay: float | None,
) -> list[Attempt]:
    """Add the task's current attempt (or its start time, to the attempt already closed)."""
    last = own[-1] if own else None
    current = task.attempts_count
    if last is not None and last.attempt == current and task.status in ("failed", "cancelled"):
        # The last attempt ended in the event that closed it; the row keeps its start.
        own[-1] = replace(last, started_at=task.started_at)
        return own
    since = last.ended_at if last is not None and last.ended_at else task.queued_at
    due = None
    if (
        last is not None
        and last.outcome == "failed"
        and last.ended_at is not None
        and base_delay is not None
        and (events[-1]["details"] or {}).get("retry") is not False
    ):
        due = last.ended_at + retry_delay(base_delay, last.attempt, task.attempt_offset)
    base = Attempt(
        task.step_slug, task.task_index, current, since, task.started_at, None, "", None, due
    )
    if task.status == "started" and task.worker_dead:
        own.append(replace(base, outcome="held", dead_since=task.worker_heartbeat_at))
    elif task.status == "started":
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

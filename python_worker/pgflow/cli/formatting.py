"""How the run commands show things on a terminal.

Durations, moments, one-line notes, a run's timing (``pgflow status``'s status line,
``pgflow runs``' STARTED and TOOK cells), and the sections of ``pgflow status`` and
``pgflow events`` about failures, retries and waits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from pgflow.cli.util import table
from pgflow.client import RetryingTask, Run, RunEvent, RunState, RunWait


def duration(seconds: float | None) -> str:
    """``12.3 s``, ``4 min 5 s``, ``2 h 3 min``; ``-`` for None."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def compact_duration(seconds: float | None) -> str:
    """A duration in its largest whole unit: ``45s``, ``12m``, ``3h``, ``2d``; ``-`` for None.

    Cut down, not rounded (``3h`` from 3 h 59 min), so a wait never looks further along
    than it is; negative durations count as ``0s``.
    """
    if seconds is None:
        return "-"
    whole = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size:
            return f"{whole // size}{unit}"
    return f"{whole}s"


def seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    """Seconds from ``start`` to ``end``; None when either is unknown."""
    if start is None or end is None:
        return None
    return (end - start).total_seconds()


def when(moment: datetime | None) -> str:
    """A moment in local time (``2025-01-02 03:04:05``); ``-`` for None."""
    if moment is None:
        return "-"
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def one_line(text: str, limit: int = 80) -> str:
    """``text`` on one line (whitespace runs become one space), cut to ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- a run's timing


def run_timing(run: Run, never_started: bool = False, now: datetime | None = None) -> str:
    """When a run started and how long it took, for ``pgflow status``'s status line.

    ``started <when>, took 4.2 s`` (finished), ``started <when>, running for 3.0 s``,
    ``queued since <when>, waiting for 8.0 s`` (queued: it has not started), ``expired at
    <when>, never started: it waited in the queue for 6.4 s`` (it ended while queued).

    Args:
        run: the run.
        never_started: it ended without leaving the queue
            (:func:`pgflow.cli.run_limits.never_started`).
        now: the moment to measure a running or queued run against (default: now).
    """
    moment = now or datetime.now(UTC)
    if run.status == "queued":
        waiting = duration(seconds_between(run.queued_at, moment))
        return f"queued since {when(run.queued_at)}, waiting for {waiting}"
    if never_started:
        end = run.completed_at or run.failed_at or run.cancelled_at or run.expired_at
        waited = duration(seconds_between(run.queued_at, end))
        return f"{run.status} at {when(end)}, never started: it waited in the queue for {waited}"
    if run.finished:
        return f"started {when(run.started_at)}, took {duration(run.duration_seconds)}"
    running = duration(seconds_between(run.started_at, moment))
    return f"started {when(run.started_at)}, running for {running}"


def started_cell(run: Run, never_started: bool = False) -> str:
    """The STARTED cell of ``pgflow runs``: when the run started.

    ``queued`` for a run waiting for a concurrency slot, ``never`` for one that ended in
    the queue (``never_started``).
    """
    if run.status == "queued":
        return "queued"
    if never_started:
        return "never"
    return when(run.started_at)


def took_cell(run: Run, never_started: bool = False) -> str:
    """The TOOK cell of ``pgflow runs``: start to end; ``-`` unfinished or never started."""
    return "-" if never_started else duration(run.duration_seconds)


# ---------------------------------------------------------------- pgflow status


def why_lines(state: RunState, events: Sequence[RunEvent]) -> list[tuple[str, str]]:
    """The labelled lines that say why a run stands where it stands.

    A failed run: the failed step and its error. A cancelled or paused run: who did it and
    why (its latest ``run:cancelled`` / ``run:paused`` event). Nothing for other runs.

    Args:
        state: the run.
        events: its events (only read for a cancelled or paused run).
    """
    if state.status == "failed":
        failed = state.failed_step
        if failed is None:
            return [("failed", "no failed step recorded")]
        error = one_line(failed.error_message or "(no error message)", 300)
        return [("failed", f"at step {failed.step_slug}: {error}")]
    if state.status in ("cancelled", "paused"):
        wanted = f"run:{state.status}"
        latest = next((e for e in reversed(events) if e.event == wanted), None)
        if latest is None:
            return []
        why = f": {one_line(latest.reason, 200)}" if latest.reason else ""
        return [(state.status, f"by {latest.actor} at {when(latest.created_at)}{why}")]
    return []


def wait_note(wait: RunWait, paused: bool = False) -> str:
    """What a waiting step waits for, from its ``get_run_waits`` row (database clock).

    ``waiting for signal approved since 3h, times out in 21h`` (no ``times out`` part
    without a timeout), ``sleeping until 2026-01-02 03:04:05, due in 2h``; once the
    deadline has passed and no tick fired it yet, ``timeout due`` / ``due now``, with how
    long ago and when it fires: at the next tick, or, for a paused run (``paused``), when
    the run is resumed (ticks leave a paused run's waits alone; ``resume_run`` settles
    them).
    """
    left = wait.seconds_left
    if wait.kind == "timer":
        if left is None:
            return f"sleeping since {compact_duration(wait.waited_seconds)}"
        if left > 0:
            return f"sleeping until {when(wait.deadline)}, due in {compact_duration(left)}"
        return f"sleeping until {when(wait.deadline)}, {_overdue('due now', left, paused)}"
    note = f"waiting for signal {wait.signal_name} since {compact_duration(wait.waited_seconds)}"
    if left is None:
        return note
    if left > 0:
        return f"{note}, times out in {compact_duration(left)}"
    return f"{note}, {_overdue('timeout due', left, paused)}"


def _overdue(what: str, seconds_left: float, paused: bool) -> str:
    fires = "fires when the run is resumed" if paused else "fires at the next tick"
    return f"{what} (since {compact_duration(-seconds_left)}; {fires})"


def next_attempt(task: RetryingTask, run_status: str, now: datetime | None = None) -> str:
    """When a retrying task is due: ``in 4.0 s``, ``due (since 3.0 s)``, ``after resume``."""
    if run_status == "paused":
        return "after resume"
    if task.next_attempt_at is None:
        return "-"
    left = (task.next_attempt_at - (now or datetime.now(UTC))).total_seconds()
    if left > 0:
        return f"in {duration(left)} ({when(task.next_attempt_at)})"
    return f"due (since {duration(-left)})"


def retrying_table(
    tasks: Sequence[RetryingTask], run_status: str, now: datetime | None = None
) -> str:
    """The table of tasks waiting for another attempt: last error and when they are due."""
    rows = [
        [
            task.step_slug,
            str(task.task_index),
            str(task.attempts_count),
            next_attempt(task, run_status, now),
            one_line(task.error_message),
        ]
        for task in tasks
    ]
    return table(["RETRYING STEP", "TASK", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR"], rows)


# ---------------------------------------------------------------- pgflow events


def events_table(events: Sequence[RunEvent]) -> str:
    """The audit trail of a run as a table, in the order given (oldest first)."""
    rows = [
        [
            when(e.created_at),
            e.event,
            e.step_slug or "",
            "" if e.task_index is None else str(e.task_index),
            e.actor,
            one_line(e.reason or "", 40),
            one_line(json.dumps(e.details, sort_keys=True), 60) if e.details else "",
        ]
        for e in events
    ]
    return table(["WHEN", "EVENT", "STEP", "TASK", "ACTOR", "REASON", "DETAILS"], rows)

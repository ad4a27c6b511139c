"""What ``pgflow start`` and ``pgflow status`` say about keys, concurrency slots and deadlines.

``pgflow start`` notes a duplicate start (``already started: run <id> (completed)``) and a
queued run (``queued: position 2 for key account:7, slot held by run <id>``);
``pgflow status`` shows a keyed run's key and limit, a queued run's place and the runs
holding the slots, and a deadline's time left (database clock) or when the run expired.
"""

from __future__ import annotations

from collections.abc import Sequence

from pgflow.cli.durations import two_units
from pgflow.cli.formatting import when
from pgflow.client import RunDeadline, RunSlot, RunState, StartedRun

#: Run statuses in which a deadline is still ahead of the run (the tick may expire it).
LIVE_STATUSES = ("queued", "started", "paused")


def runs_text(holders: Sequence[str], run_id: str | None = None) -> str:
    """``run <id>`` or ``runs <id>, <id>`` (``no run``); ``(this run)`` follows ``run_id``'s."""
    names = [f"{h} (this run)" if h == run_id else h for h in holders]
    if not names:
        return "no run"
    return f"run {names[0]}" if len(names) == 1 else f"runs {', '.join(names)}"


def queue_text(slot: RunSlot) -> str:
    """``position 2 for key account:7, slot held by run <id>`` for a queued run's slot."""
    where = "" if slot.queue_position is None else f"position {slot.queue_position} "
    if not slot.holders:
        held = "no run holds a slot yet"
    else:
        held = f"slot{'s' if len(slot.holders) > 1 else ''} held by {runs_text(slot.holders)}"
    return f"{where}for key {slot.concurrency_key}, {held}"


def start_notes(state: StartedRun, slot: RunSlot | None) -> list[str]:
    """The notes ``pgflow start`` writes to stderr after the run id.

    Args:
        state: what ``start_flow`` returned.
        slot: the run's slot (read for a queued run), or None.

    Returns:
        ``already started: run <id> (<status>)`` for a duplicate start, ``queued: ...``
        for a queued run; nothing for an ordinary start.
    """
    notes = []
    if state.duplicate:
        notes.append(f"already started: run {state.run_id} ({state.status})")
    if state.status == "queued":
        notes.append(f"queued: {queue_text(slot)}" if slot else "queued: waiting for a slot")
    return notes


def key_text(slot: RunSlot) -> str:
    """``account:7 (limit 1, on limit queue)``, or ``account:7 (no concurrency limit)``."""
    if slot.concurrency_limit is None:
        return f"{slot.concurrency_key} (no concurrency limit)"
    return f"{slot.concurrency_key} (limit {slot.concurrency_limit}, on limit {slot.on_limit})"


def deadline_text(state: RunState, deadline: RunDeadline) -> str:
    """``in 1h 20m (<when>)``, or once passed, ``passed 5m ago (<when>): ...``."""
    at = when(deadline.deadline)
    if not deadline.passed:
        return f"in {two_units(deadline.seconds_left)} ({at})"
    return (
        f"passed {two_units(-deadline.seconds_left)} ago ({at}): "
        f"the run is {state.status} until the next tick expires it"
    )


def status_lines(
    state: RunState, slot: RunSlot | None, deadline: RunDeadline | None
) -> list[tuple[str, str]]:
    """The labelled lines of ``pgflow status`` about the run's keys, slot and deadline.

    Args:
        state: the run.
        slot: its ``get_run_slot`` row (None: no concurrency key, or not read).
        deadline: its deadline with the time left on the database clock (None: none, or
            not read: only asked for a run that can still expire).

    Returns:
        ``key`` (concurrency key, limit, on_limit), ``queue`` (a queued run's place and
        the runs holding the slots) or ``slots`` (a live run's holders), ``idem key``,
        ``deadline`` (time left) or ``expired`` (when), in that order.
    """
    lines: list[tuple[str, str]] = []
    live = state.status in LIVE_STATUSES
    if slot is not None:
        lines.append(("key", key_text(slot)))
        if state.status == "queued":
            lines.append(("queue", queue_text(slot)))
        elif live and slot.concurrency_limit is not None:
            held = f"{len(slot.holders)} of {slot.concurrency_limit} held"
            if slot.holders:
                held += f" by {runs_text(slot.holders, state.run_id)}"
            lines.append(("slots", held))
    if state.idempotency_key is not None:
        lines.append(("idem key", state.idempotency_key))
    if state.status == "expired":
        past = f" (deadline {when(state.deadline)})" if state.deadline else ""
        lines.append(("expired", f"at {when(state.expired_at)}{past}"))
    elif live and deadline is not None:
        lines.append(("deadline", deadline_text(state, deadline)))
    return lines

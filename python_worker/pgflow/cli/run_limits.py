"""What the run commands say about keys, concurrency slots, the queue and deadlines.

``pgflow start`` notes a duplicate start (``already started: run <id> (completed)``) and a
queued run (``queued: position 2 for key account:7, slot held by run <id>``); ``pgflow
start --wait`` and ``pgflow rerun`` say whether the new run started or was queued
(:func:`begun_text`); ``pgflow status`` shows a keyed run's key and limit, a queued run's
place and the runs holding the slots, and a deadline's time left (database clock) or when
the run expired; :func:`never_started` tells a run that ended in the queue. A bad
``--idempotency-key`` / ``--concurrency-key`` is a usage error worded for the command line
(:func:`key_callback`).
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from pgflow.cli.durations import two_units
from pgflow.cli.formatting import when
from pgflow.client import Run, RunDeadline, RunEvent, RunSlot, RunState, StartedRun
from pgflow.client.start_options import check_run_key
from pgflow.errors import InvalidStartOption

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


def begun_text(
    run_id: str,
    status: str,
    slot: RunSlot | None,
    of: str = "",
    notes: Sequence[str] = (),
) -> str:
    """What became of a run just created: started, or queued and where it stands.

    ``started run <id>``, ``queued run <id> (position 2 for key account:7, slot held by
    run <id>)``, ``started run <id> (now completed)`` for a run that ended at once (all its
    steps skipped).

    Args:
        run_id: the new run.
        status: its status right after the start.
        slot: its ``get_run_slot`` row, read for a queued run (None: not read).
        of: put right after the id, e.g. `` of flow billing``.
        notes: put first in the parentheses, e.g. ``rerun of <id>``.
    """
    extra = list(notes)
    if status == "queued":
        extra.append(queue_text(slot) if slot else "waiting for a slot")
    elif status != "started":
        extra.append(f"now {status}")
    verb = "queued" if status == "queued" else "started"
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"{verb} run {run_id}{of}{tail}"


def may_have_ended_queued(run: Run) -> bool:
    """True for a finished run that may have ended in the queue: its events can tell.

    Only a run created queued has ``queued_at``; its ``started_at`` is then the same
    moment (one statement), and leaving the queue sets ``started_at`` to that moment's
    ``pgflow._now()``: a run whose ``started_at`` is after ``queued_at`` did start. The others
    (the same moment: a start in the same transaction, or in one begun earlier) need
    :func:`never_started` with their events.
    """
    if not run.finished or run.queued_at is None or run.started_at is None:
        return False
    return run.started_at <= run.queued_at


def never_started(run: Run, events: Sequence[RunEvent]) -> bool:
    """True for a run that never left the queue: still queued, or ended there.

    The rule: the run was created queued (``queued_at`` is set) and its audit trail holds
    no ``run:started`` (a run created queued gets ``run:queued``; ``run:started`` is
    written when it leaves the queue, and only then). The steps cannot tell: a run that
    started with only waiting root steps (no task, no ``started_at``) looks the same.

    Args:
        run: the run.
        events: its events, oldest first. Empty (not read, or pruned): False unless the
            run is queued, so nothing is claimed that its record cannot show.
    """
    if run.status == "queued":
        return True
    if run.queued_at is None or not events:
        return False
    return not any(event.event == "run:started" for event in events)


def key_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The click callback of ``--idempotency-key`` and ``--concurrency-key``.

    Checks the key as the client would (:func:`pgflow.client.start_options.check_run_key`)
    and words a refusal for the command line: a blank key says to omit the option.

    Raises:
        click.BadParameter: a blank or over-255-character key (usage error, exit 2).
    """
    if value is None:
        return None
    option = param.opts[0] if param.opts else str(param.name)
    name = str(param.name)
    try:
        return check_run_key(name, value)
    except InvalidStartOption as exc:
        text = str(exc)
        if "must not be blank" in text:
            text = (
                f"must not be blank (got {value!r}): omit {option} for no key, "
                "or give a text that names the thing, e.g. order-42"
            )
        elif text.startswith(f"{name} "):
            text = text[len(name) + 1 :]  # click names the option already
        raise click.BadParameter(text, ctx=ctx, param=param) from exc


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

"""Runs said in words: the sentences of the runs list, and the time formats they use.

:func:`describe` turns the facts the runs list reads for one run (:mod:`pgflow.observe.runs`)
into a sentence (``"running parse: 1,070 of 1,792 tasks"``, ``"retrying fetch (attempt 2
of 3, next in 40 s): TimeoutError"``, ``"waiting for signal approved since 3 h"``,
``"failed at charge: CardDeclined"``, ``"queued behind 2 runs (key k)"``, ``"paused by
alice: reason"``, ``"completed in 4.2 s"``, ``"expired (deadline ...)"``); started tasks
whose worker is dead are said apart (``"running process: 25 of 30 tasks, 5 held by a dead
worker (awaiting the stalled-task sweep)"``). Ages and times left come in as seconds measured on the
database clock; nothing here reads a clock.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final


def describe(facts: Mapping[str, Any]) -> str:
    """Say in words what a run is doing, from the facts :mod:`pgflow.observe.runs` reads.

    Args:
        facts: a row of the page query (``status`` and the columns of its lateral parts:
            ``running`` (per started step: slug, type, initial and remaining tasks, and
            started tasks held by a dead worker), ``retry_*``, ``wait_*``, ``failed_*``, ``by_*``,
            ``queued_behind``, ``took_seconds``, ``deadline``, ``concurrency_key``) plus
            ``retry_due_in`` (seconds until the retrying task's message is visible, or
            None). Missing keys count as None.

    Returns:
        The sentence, e.g. ``"failed at charge: CardDeclined"``.
    """
    status = facts.get("status")
    if status == "started":
        running = facts.get("running")
        retrying = _retrying(facts)
        parts = [retrying, _held(running)] if retrying else [_running(running)]
        parts.append(_waiting(facts))
        return "; ".join(part for part in parts if part) or "started"
    if status == "completed":
        took = facts.get("took_seconds")
        return "completed" if took is None else f"completed in {format_duration(took)}"
    if status == "failed":
        step = facts.get("failed_step")
        if step is None:
            return "failed"
        error = facts.get("failed_error")
        return f"failed at {step}: {short_error(error)}" if error else f"failed at {step}"
    if status in ("paused", "cancelled"):
        actor, reason = facts.get("by_actor"), facts.get("by_reason")
        said = str(status) if actor is None else f"{status} by {actor}"
        return f"{said}: {reason}" if reason else said
    if status == "queued":
        key = facts.get("concurrency_key")
        behind = facts.get("queued_behind") or 0
        runs = "run" if behind == 1 else "runs"
        where = f"queued behind {behind} {runs}" if behind else "queued"
        return f"{where} (key {key})" if key is not None else where
    if status == "expired":
        deadline = facts.get("deadline")
        return "expired" if deadline is None else f"expired (deadline {format_time(deadline)})"
    return str(status)


#: What the runs list adds to tasks held by a dead worker: nobody will report them.
DEAD_HELD: Final = "held by a dead worker (awaiting the stalled-task sweep)"


def _running(running: Sequence[Sequence[Any]] | None) -> str | None:
    """``running parse: 1,070 of 1,792 tasks`` (a single task step: its slug alone).

    A step's fifth fact, when present, counts its started tasks held by a dead worker:
    ``running parse: 25 of 30 tasks, 5 held by a dead worker (awaiting the stalled-task
    sweep)``, or for a single task step ``running charge: held by a dead worker
    (...)``.
    """
    if not running:
        return None
    parts = []
    for step_slug, step_type, initial, remaining, *rest in running[:3]:
        held = int(rest[0] or 0) if rest else 0
        if step_type == "map" or (initial is not None and initial != 1):
            done = (initial or 0) - (remaining if remaining is not None else initial or 0)
            text = f"{step_slug}: {done:,} of {initial or 0:,} tasks"
            parts.append(text + (f", {held:,} {DEAD_HELD}" if held else ""))
        else:
            parts.append(f"{step_slug}: {DEAD_HELD}" if held else str(step_slug))
    more = len(running) - 3
    held_later = sum(int(step[4] or 0) for step in running[3:] if len(step) > 4)
    tail = f" and {more} more steps" if more > 0 else ""
    if held_later:
        tail += f" ({held_later:,} more tasks {DEAD_HELD})"
    return "running " + ", ".join(parts) + tail


def _held(running: Sequence[Sequence[Any]] | None) -> str | None:
    """``5 tasks held by a dead worker (...)``: said next to a retry, which comes first."""
    held = sum(int(step[4] or 0) for step in running or () if len(step) > 4)
    if not held:
        return None
    return f"{held:,} {'task' if held == 1 else 'tasks'} {DEAD_HELD}"


def _retrying(facts: Mapping[str, Any]) -> str | None:
    """``retrying fetch (attempt 2 of 3, next in 40 s): TimeoutError``."""
    step = facts.get("retry_step")
    if step is None:
        return None
    when = ""
    due_in = facts.get("retry_due_in")
    if due_in is not None:
        when = ", due now" if due_in <= 0 else f", next in {format_age(due_in, ceil=True)}"
    attempt = f"attempt {facts.get('retry_attempt')} of {facts.get('retry_max')}"
    text = f"retrying {step} ({attempt}{when}): {short_error(facts.get('retry_error') or '')}"
    others = int(facts.get("retry_count") or 1) - 1
    return text + (f" (+{others:,} more tasks retrying)" if others > 0 else "")


def _waiting(facts: Mapping[str, Any]) -> str | None:
    """``waiting for signal approved since 3 h``, ``waiting for timer of remind: due in 5 min``."""
    step = facts.get("wait_step")
    if step is None:
        return None
    left = facts.get("wait_left")
    if facts.get("wait_kind") == "timer":
        due = "due now" if left is None or left <= 0 else f"due in {format_age(left, ceil=True)}"
        return f"waiting for timer of {step}: {due}"
    text = f"waiting for signal {facts.get('wait_signal')} since {format_age(facts['wait_age'])}"
    if left is not None:
        text += f" (times out in {format_age(max(left, 0.0), ceil=True)})"
    return text


_ERROR_NAME = re.compile(r"^([A-Za-z_][\w.]*)(?::|$)")


def short_error(text: str | None) -> str:
    """The short form of a stored error: its exception type name, else its first line.

    The worker stores ``"<TypeName>: <message>"`` (``CardDeclined: card 4242 declined``
    gives ``CardDeclined``); other errors (``Task stalled: ...``) give their first line, cut
    at 80 characters.
    """
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    match = _ERROR_NAME.match(first)
    if match:
        return match.group(1)
    return first if len(first) <= 80 else first[:79] + "…"


def format_age(seconds: float, *, ceil: bool = False) -> str:
    """A rough length of time in one unit: ``40 s``, ``5 min``, ``3 h``, ``2 d``.

    Args:
        seconds: the length (not negative; a negative one counts as 0).
        ceil: round seconds up (times still to come: "next in 40 s"); else down. Larger
            units are always rounded down.
    """
    seconds = max(seconds, 0.0)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{math.ceil(seconds) if ceil else math.floor(seconds)} s"


def format_duration(seconds: float) -> str:
    """A duration to read: ``4.2 s``, ``42 s``, ``3 min 20 s``, ``2 h 5 min``, ``3 d 4 h``."""
    seconds = max(seconds, 0.0)
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{round(seconds)} s"
    whole = int(seconds)
    for big, big_size, small, small_size in (
        ("d", 86400, "h", 3600),
        ("h", 3600, "min", 60),
        ("min", 60, "s", 1),
    ):
        if whole >= big_size:
            rest = (whole % big_size) // small_size
            return (
                f"{whole // big_size} {big} {rest} {small}"
                if rest
                else f"{whole // big_size} {big}"
            )
    return f"{whole} s"  # pragma: no cover - seconds >= 60 always matches above


def format_time(value: datetime) -> str:
    """A timestamp in UTC, to the second: ``2024-05-01 10:00:00 UTC``."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

"""The run's timeline as inline SVG: one bar per task attempt, queued -> started -> outcome.

Time runs left to right from the run's start to its end (or the engine's time,
``pgflow._now()``, while it runs). Each attempt is a ``<g class="attempt o-<outcome>" data-step=...
data-task=... data-attempt=... data-outcome=...>`` made of segments (``<rect class="seg
<kind>">``, coloured by the page's CSS):

- ``backoff``: after a failed attempt, waiting to retry (the retry's backoff: its message
  is not visible yet), drawn pale and dashed;
- ``queued``: visible, waiting for a worker (pale);
- ``ran``: running, coloured by the outcome (``.o-<outcome>``);
- ``unknown-start``: an earlier attempt whose start the database no longer keeps (only
  the current attempt's start is kept), hatched from when it could start to its end;
- ``held``: a started attempt whose worker is dead or stopped, from the worker's last
  heartbeat on: nobody runs it, the stalled-task sweep will take it back.

Attempts made before the run was retried are drawn too (``before-retry``); each retry is
a dashed vertical line labelled ``retried``. At most :data:`ROWS_PER_STEP` rows are drawn
per step (the unfinished, failed and retried attempts first), the rest counted in a
``N more attempts of <step>`` row, and at most :data:`MAX_BARS` rows in all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from html import escape
from typing import Final

from pgflow.observe.run_attempts import Attempt
from pgflow.observe.run_words import format_duration, format_time, short_error

MAX_BARS: Final = 300
#: The most attempts drawn for one step.
ROWS_PER_STEP: Final = 50
LABEL_W: Final = 170
BAR_W: Final = 620
TEXT_W: Final = 230
ROW_H: Final = 18
TOP: Final = 26

# The outcomes of plain attempts (a first attempt, queued or completed): when a step has
# more attempts than rows, they fill the rows left after the others.
_PLAIN: Final = frozenset({"completed", "queued"})


def _outcome_label(attempt: Attempt, now: datetime | None = None) -> str:
    """What an attempt's bar says after it (``now``: the timeline's right edge)."""
    if attempt.outcome == "failed" and attempt.error:
        text = f"failed: {short_error(attempt.error)}"
    elif attempt.outcome == "requeued":
        text = "requeued (stalled)"
    elif attempt.outcome == "held":
        text = "held by a dead worker"
    elif attempt.outcome == "queued" and attempt.retry_due_at is not None:
        waiting = now is None or attempt.retry_due_at > now
        text = "waiting to retry" if waiting else "queued (retry due)"
    else:
        text = attempt.outcome
    return text + (" (before retry)" if attempt.before_retry else "")


def pick_rows(attempts: Sequence[Attempt], per_step: int = ROWS_PER_STEP) -> list[Attempt | str]:
    """The rows to draw: at most ``per_step`` attempts a step, then a note of the rest.

    Within a step the attempts that are not plain (completed, or queued for a first
    attempt) are kept first; the rows keep the attempts' order.

    Returns:
        Attempts, and for a step with more, the text ``"N more attempts of <step>"``
        after its rows.
    """
    by_step: dict[str, list[int]] = {}
    for n, attempt in enumerate(attempts):
        by_step.setdefault(attempt.step_slug, []).append(n)
    rows: list[Attempt | str] = []
    for step, indexes in by_step.items():
        if len(indexes) <= per_step:
            rows.extend(attempts[n] for n in indexes)
            continue
        notable = [n for n in indexes if not _plain(attempts[n])]
        plain = [n for n in indexes if _plain(attempts[n])]
        kept = sorted((notable + plain)[:per_step])
        rows.extend(attempts[n] for n in kept)
        rows.append(f"{len(indexes) - len(kept):,} more attempts of {step}")
    return rows


def _plain(attempt: Attempt) -> bool:
    return (
        attempt.outcome in _PLAIN
        and attempt.retry_due_at is None
        and not attempt.before_retry
        and attempt.attempt <= 1
    )


def draw_timeline(
    attempts: Sequence[Attempt],
    start: datetime,
    end: datetime,
    *,
    retried_at: Sequence[datetime] = (),
    not_read: Mapping[str, int] | None = None,
) -> str:
    """Return the SVG timeline of ``attempts`` between ``start`` and ``end``.

    Args:
        attempts: the attempts, in the order of their rows.
        start: the left edge (the run's start).
        end: the right edge (the run's end, or the engine's time while it runs).
        retried_at: when the run was retried: a marked vertical line each.
        not_read: per step, tasks whose attempts were not read (counted in the step's
            note row).

    Returns:
        An ``<svg>`` element (text), or an empty string when there is no attempt.
    """
    if not attempts:
        return ""
    rows = pick_rows(attempts)
    for step, count in (not_read or {}).items():
        if count > 0:
            rows.append(f"{count:,} more tasks of {step} not read")
    drawn = rows[:MAX_BARS]
    span = max((end - start).total_seconds(), 0.001)

    def x(at: datetime | None) -> float:
        if at is None:
            at = end
        seconds = min(max((at - start).total_seconds(), 0.0), span)
        return LABEL_W + seconds / span * BAR_W

    width = LABEL_W + BAR_W + TEXT_W
    extra = ROW_H if len(rows) > MAX_BARS else 0
    height = TOP + len(drawn) * ROW_H + extra + 6
    parts = [
        f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}"'
        f' height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="timeline">',
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"'
        ' patternTransform="rotate(45)"><rect width="3" height="6" class="hatch"/></pattern>'
        '<pattern id="held" width="6" height="6" patternUnits="userSpaceOnUse"'
        ' patternTransform="rotate(-45)"><rect width="3" height="6" class="held-hatch"/>'
        "</pattern></defs>",
        f'<text class="axis" x="{LABEL_W}" y="12">{escape(format_time(start))}</text>',
        f'<text class="axis end" x="{LABEL_W + BAR_W}" y="12" text-anchor="end">'
        f"+{escape(format_duration(span))}</text>",
        f'<line class="grid" x1="{LABEL_W}" y1="16" x2="{LABEL_W}" y2="{height}"/>',
        f'<line class="grid" x1="{LABEL_W + BAR_W}" y1="16" x2="{LABEL_W + BAR_W}" y2="{height}"/>',
    ]
    for at in retried_at:
        if start <= at <= end:
            parts.append(_retry_mark(at, x(at), height))
    for row, item in enumerate(drawn):
        y = TOP + row * ROW_H
        if isinstance(item, str):
            parts.append(
                f'<text class="note" x="{LABEL_W}" y="{y + ROW_H - 5}">{escape(item)}</text>'
            )
        else:
            parts.append(_bar(item, y, x, end))
    if len(rows) > MAX_BARS:
        parts.append(
            f'<text class="note" x="{LABEL_W}" y="{TOP + len(drawn) * ROW_H + 12}">'
            f"{len(rows) - MAX_BARS:,} more rows not drawn</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _retry_mark(at: datetime, left: float, height: int) -> str:
    return (
        f'<g class="retry-mark" data-at="{escape(at.isoformat())}">'
        f"<title>run retried at {escape(format_time(at))}</title>"
        f'<line x1="{left:.1f}" y1="14" x2="{left:.1f}" y2="{height}"/>'
        f'<text x="{left + 3:.1f}" y="{TOP - 3}">retried</text></g>'
    )


def _segments(
    attempt: Attempt, x: Callable[[datetime | None], float]
) -> list[tuple[str, float, float]]:
    """The segments of one attempt's bar: (kind, left, right) in pixels."""
    segments: list[tuple[str, float, float]] = []
    left = x(attempt.queued_at if attempt.queued_at is not None else attempt.ended_at)
    stop = x(attempt.started_at if attempt.started_at is not None else attempt.ended_at)
    if attempt.retry_due_at is not None:
        due = min(x(attempt.retry_due_at), stop)
        segments.append(("backoff", left, due))
        left = max(left, due)
    if attempt.started_at is not None:
        segments.append(("queued", left, x(attempt.started_at)))
        if attempt.outcome == "held":
            ran_to = max(x(attempt.dead_since), x(attempt.started_at))
            segments.append(("ran", x(attempt.started_at), ran_to))
            segments.append(("held", ran_to, x(None)))
        else:
            segments.append(("ran", x(attempt.started_at), x(attempt.ended_at)))
    elif attempt.outcome in ("queued", "cancelled"):  # waiting, or cancelled while waiting
        segments.append(("queued", left, x(attempt.ended_at)))
    else:
        segments.append(("unknown-start", left, x(attempt.ended_at)))
    shown = [seg for seg in segments if seg[2] > seg[1]]
    return shown or segments[-1:]


def _bar(attempt: Attempt, y: int, x: Callable[[datetime | None], float], end: datetime) -> str:
    task = f"{attempt.step_slug}[{attempt.task_index}]"
    label = f"{task} #{attempt.attempt}"
    outcome = escape(attempt.outcome)
    segments = _segments(attempt, x)
    names = {
        "backoff": "waiting to retry",
        "queued": "queued",
        "ran": "ran",
        "unknown-start": "queued or ran (start not kept)",
        "held": "held by a dead worker",
    }
    rects = "".join(
        f'<rect class="seg {kind}" x="{left:.1f}" y="{y + 3}" width="{max(right - left, 2.0):.1f}"'
        f' height="{ROW_H - 6}"><title>{names[kind]}</title></rect>'
        for kind, left, right in segments
    )
    end_x = max(right for _, _, right in segments)
    when = ""
    if attempt.retry_due_at is not None:
        when = f"\nretry due at {format_time(attempt.retry_due_at)}"
    if attempt.dead_since is not None:
        when = f"\nworker's last heartbeat at {format_time(attempt.dead_since)}"
    title = escape(
        f"{task} attempt {attempt.attempt}: {_outcome_label(attempt, end)}{when}"
        + (f"\n{attempt.error}" if attempt.error else "")
    )
    kind = " before-retry" if attempt.before_retry else ""
    return (
        f'<g class="attempt o-{outcome}{kind}" data-step="{escape(attempt.step_slug)}"'
        f' data-task="{attempt.task_index}" data-attempt="{attempt.attempt}"'
        f' data-outcome="{outcome}"><title>{title}</title>'
        f'<text class="label" x="4" y="{y + ROW_H - 5}">{escape(label[:26])}</text>{rects}'
        f'<text class="outcome" x="{min(end_x + 4, LABEL_W + BAR_W + 4):.1f}" y="{y + ROW_H - 5}">'
        f"{escape(_outcome_label(attempt, end)[:34])}</text></g>"
    )

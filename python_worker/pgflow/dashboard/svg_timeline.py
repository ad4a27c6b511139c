"""The run's timeline as inline SVG: one bar per task attempt, queued -> started -> outcome.

Time runs left to right from the run's start to its end (or the database's ``now()``
while it runs). Each attempt is a ``<g class="attempt o-<outcome>" data-step=...
data-task=... data-attempt=... data-outcome=...>``: a pale segment while it was queued,
a solid one while it ran, coloured by its outcome (``.o-<outcome>`` in the page's CSS),
and a label saying the outcome. An attempt whose start the database no longer knows (an
earlier, failed attempt: only the current attempt's start is kept) is drawn as one
hatched segment from when it was queued to when it ended. At most :data:`MAX_BARS` bars
are drawn; the rest are counted in a note.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from html import escape
from typing import Final

from pgflow.observe.run_attempts import Attempt
from pgflow.observe.run_words import format_duration, format_time, short_error

MAX_BARS: Final = 300
LABEL_W: Final = 170
BAR_W: Final = 620
TEXT_W: Final = 230
ROW_H: Final = 18
TOP: Final = 22


def _outcome_label(attempt: Attempt) -> str:
    if attempt.outcome == "failed" and attempt.error:
        return f"failed: {short_error(attempt.error)}"
    if attempt.outcome == "requeued":
        return "requeued (stalled)"
    return attempt.outcome


def draw_timeline(attempts: Sequence[Attempt], start: datetime, end: datetime) -> str:
    """Return the SVG timeline of ``attempts`` between ``start`` and ``end``.

    Args:
        attempts: the attempts, in the order of their rows.
        start: the left edge (the run's start).
        end: the right edge (the run's end, or the database's now() while it runs).

    Returns:
        An ``<svg>`` element (text), or an empty string when there is no attempt.
    """
    if not attempts:
        return ""
    drawn = attempts[:MAX_BARS]
    span = max((end - start).total_seconds(), 0.001)

    def x(at: datetime | None) -> float:
        if at is None:
            at = end
        seconds = min(max((at - start).total_seconds(), 0.0), span)
        return LABEL_W + seconds / span * BAR_W

    width = LABEL_W + BAR_W + TEXT_W
    height = TOP + len(drawn) * ROW_H + (ROW_H if len(attempts) > MAX_BARS else 0) + 6
    parts = [
        f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}"'
        f' height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="timeline">',
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"'
        ' patternTransform="rotate(45)"><rect width="3" height="6" class="hatch"/></pattern>'
        "</defs>",
        f'<text class="axis" x="{LABEL_W}" y="12">{escape(format_time(start))}</text>',
        f'<text class="axis end" x="{LABEL_W + BAR_W}" y="12" text-anchor="end">'
        f"+{escape(format_duration(span))}</text>",
        f'<line class="grid" x1="{LABEL_W}" y1="16" x2="{LABEL_W}" y2="{height}"/>',
        f'<line class="grid" x1="{LABEL_W + BAR_W}" y1="16" x2="{LABEL_W + BAR_W}" y2="{height}"/>',
    ]
    for row, attempt in enumerate(drawn):
        parts.append(_bar(attempt, TOP + row * ROW_H, x))
    if len(attempts) > MAX_BARS:
        more = len(attempts) - MAX_BARS
        parts.append(
            f'<text class="note" x="{LABEL_W}" y="{TOP + len(drawn) * ROW_H + 12}">'
            f"{more:,} more attempts not drawn</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _bar(attempt: Attempt, y: int, x: Callable[[datetime | None], float]) -> str:
    task = f"{attempt.step_slug}[{attempt.task_index}]"
    label = f"{task} #{attempt.attempt}"
    outcome = escape(attempt.outcome)
    segments = []
    queued_at = attempt.queued_at
    if attempt.started_at is not None:
        segments.append(("queued", x(queued_at), x(attempt.started_at)))
        segments.append(("ran", x(attempt.started_at), x(attempt.ended_at)))
    elif attempt.outcome in ("queued", "cancelled"):  # waiting, or cancelled while waiting
        segments.append(("queued", x(queued_at), x(attempt.ended_at)))
    else:
        segments.append(("unknown-start", x(queued_at), x(attempt.ended_at)))
    rects = "".join(
        f'<rect class="seg {kind}" x="{left:.1f}" y="{y + 3}" width="{max(right - left, 2.0):.1f}"'
        f' height="{ROW_H - 6}"/>'
        for kind, left, right in segments
    )
    end_x = max(right for _, _, right in segments)
    title = escape(
        f"{task} attempt {attempt.attempt}: {_outcome_label(attempt)}"
        + (f"\n{attempt.error}" if attempt.error else "")
    )
    return (
        f'<g class="attempt o-{outcome}" data-step="{escape(attempt.step_slug)}"'
        f' data-task="{attempt.task_index}" data-attempt="{attempt.attempt}"'
        f' data-outcome="{outcome}"><title>{title}</title>'
        f'<text class="label" x="4" y="{y + ROW_H - 5}">{escape(label[:26])}</text>{rects}'
        f'<text class="outcome" x="{min(end_x + 4, LABEL_W + BAR_W + 4):.1f}" y="{y + ROW_H - 5}">'
        f"{escape(_outcome_label(attempt)[:34])}</text></g>"
    )

"""Runs started and finished per interval as an inline SVG bar chart, drawn on the server.

Two bars per interval: runs started (``.started``) and runs finished, the finished bar
stacked by outcome (``.completed``, ``.failed``, ``.other``: cancelled or expired). Each
interval is a ``<g class="bucket" data-start=... data-started=... data-finished=...>``
with a tooltip; the y axis is labelled with its maximum.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

from pgflow.observe.flow_stats import RunCountBucket
from pgflow.observe.run_words import format_time

HEIGHT: Final = 160
LEFT: Final = 44
SLOT: Final = 26
TOP: Final = 10
BOTTOM: Final = 22


def draw_run_counts(buckets: Sequence[RunCountBucket]) -> str:
    """Return the SVG chart of ``buckets`` (oldest first), or "" when there is none."""
    if not buckets:
        return ""
    peak = max(max(b.started, b.finished) for b in buckets) or 1
    plot = HEIGHT - TOP - BOTTOM
    width = LEFT + len(buckets) * SLOT + 10

    def h(count: int) -> float:
        return count / peak * plot

    parts = [
        f'<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT}"'
        f' viewBox="0 0 {width} {HEIGHT}" role="img" aria-label="runs started and finished">',
        f'<text class="axis" x="{LEFT - 4}" y="{TOP + 8}" text-anchor="end">{peak:,}</text>',
        f'<text class="axis" x="{LEFT - 4}" y="{HEIGHT - BOTTOM}" text-anchor="end">0</text>',
        f'<line class="grid" x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{width}"'
        f' y2="{HEIGHT - BOTTOM}"/>',
    ]
    base = HEIGHT - BOTTOM
    for n, bucket in enumerate(buckets):
        x = LEFT + n * SLOT + 2
        title = escape(
            f"{format_time(bucket.bucket_start)}: {bucket.started:,} started, "
            f"{bucket.finished:,} finished ({bucket.completed:,} completed, "
            f"{bucket.failed:,} failed, {bucket.cancelled + bucket.expired:,} cancelled or expired)"
        )
        rects = [
            f'<rect class="started" x="{x}" y="{base - h(bucket.started):.1f}" width="10"'
            f' height="{h(bucket.started):.1f}"/>'
        ]
        top = float(base)
        other = bucket.cancelled + bucket.expired
        for kind, count in (
            ("completed", bucket.completed),
            ("failed", bucket.failed),
            ("other", other),
        ):
            if count:
                top -= h(count)
                rects.append(
                    f'<rect class="{kind}" x="{x + 11}" y="{top:.1f}" width="10"'
                    f' height="{h(count):.1f}"/>'
                )
        parts.append(
            f'<g class="bucket" data-start="{bucket.bucket_start.isoformat()}"'
            f' data-started="{bucket.started}" data-finished="{bucket.finished}">'
            f"<title>{title}</title>{''.join(rects)}</g>"
        )
    first, last = buckets[0].bucket_start, buckets[-1].bucket_start
    parts.append(
        f'<text class="axis" x="{LEFT}" y="{HEIGHT - 6}">{escape(format_time(first))}</text>'
    )
    parts.append(
        f'<text class="axis" x="{width - 4}" y="{HEIGHT - 6}" text-anchor="end">'
        f"{escape(format_time(last))}</text></svg>"
    )
    return "".join(parts)

"""The flow's DAG as inline SVG, drawn on the server: one box per step, coloured by status.

Steps are laid out in columns by dependency depth (a root step in the first column, a
step one column right of its deepest dependency), in definition order within a column;
every column puts its boxes on the same rows, so the bands between rows ("lanes") and
the gaps between columns are free of boxes. Each box is a ``<g class="node s-<status>"
data-step=... data-status=...>`` linking to the step's row on the page; map steps are
drawn as a stack of boxes and say ``map``. A slug too long for its box is cut with ``…``
and its full name is the tooltip of its text.

An edge goes from each dependency to its dependent: between neighbouring columns a
curve through the gap; an edge that skips columns (``class="edge long"``) leaves through
the gap after its source, runs along the lane nearest to its two ends, and comes back
through the gap before its target, so it never passes behind an unrelated box. Colours
come from the page's CSS (``.s-<status>``). Every text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

from pgflow.observe.run_detail import StepView

BOX_W: Final = 168
BOX_H: Final = 46
GAP_X: Final = 64
GAP_Y: Final = 30
MARGIN: Final = 12
#: Pixels per character of a box's step name (13 px, semi-bold: wide letters included).
NAME_CHAR_W: Final = 8
#: The offsets (pixels) that keep long edges sharing a lane or a gap apart.
_SPREAD: Final = (0, -6, 6, -12, 12)
_CORNER: Final = 8
#: How far a map step's stack of boxes reaches right of (and above) its box.
STACK: Final = 6


def _label(step: StepView) -> str:
    """The second line of a box: status, tasks done for a started or map step, the wait."""
    parts = [step.status]
    if step.initial_tasks is not None and (step.step_type == "map" or step.initial_tasks != 1):
        remaining = step.remaining_tasks if step.remaining_tasks is not None else step.initial_tasks
        if step.status == "completed":
            remaining = 0
        parts.append(f"{step.initial_tasks - remaining:,}/{step.initial_tasks:,}")
    if step.step_type == "map":
        parts.append("map")
    if step.wait:
        parts.append(f"waits {step.wait}")
    return " · ".join(parts)


def fit(text: str, width: int, char_w: int = 7) -> str:
    """Cut ``text`` to what fits in ``width`` pixels (``char_w`` per character), with ``…``."""
    most = max(4, width // char_w)
    return text if len(text) <= most else text[: most - 1] + "…"


def _top(row: int) -> int:
    """The y of the top of a box on ``row`` (room above row 0 for a lane and a stack)."""
    return MARGIN + GAP_Y + row * (BOX_H + GAP_Y)


def _lane(k: int) -> float:
    """The y of the middle of lane ``k``: the band above row ``k`` (lane ``rows``: below all)."""
    return _top(k) - GAP_Y / 2


def _left(column: int) -> int:
    return MARGIN + column * (BOX_W + GAP_X)


def draw_dag(steps: Sequence[StepView]) -> str:
    """Return the SVG of the flow's steps and dependencies with each step's status.

    Args:
        steps: the flow's steps in definition order, with ``depth`` and ``deps``.

    Returns:
        An ``<svg>`` element (text), or an empty string when there is no step.
    """
    if not steps:
        return ""
    columns: dict[int, list[StepView]] = {}
    for step in steps:
        columns.setdefault(step.depth, []).append(step)
    places: dict[str, tuple[int, int]] = {}  # slug -> (column, row)
    for depth, in_column in columns.items():
        for row, step in enumerate(in_column):
            places[step.step_slug] = (depth, row)
    rows = max(len(c) for c in columns.values())
    width = MARGIN * 2 + (max(columns) + 1) * (BOX_W + GAP_X) - GAP_X + 8
    height = _top(rows) + MARGIN
    parts = [
        f'<svg class="dag" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label="steps of the flow">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"'
        ' markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"'
        ' class="arrowhead"/></marker></defs>',
    ]
    maps = {step.step_slug for step in steps if step.step_type == "map"}
    long_edges = 0
    for step in steps:
        for dep in step.deps:
            if dep not in places:
                continue
            spread = 0
            if places[step.step_slug][0] - places[dep][0] > 1:
                spread = _SPREAD[long_edges % len(_SPREAD)]
                long_edges += 1
            source, target = places[dep], places[step.step_slug]
            pad = STACK if dep in maps else 0
            parts.append(_edge(dep, step.step_slug, source, target, spread, rows, pad))
    for step in steps:
        column, row = places[step.step_slug]
        parts.append(_node(step, _left(column), _top(row)))
    parts.append("</svg>")
    return "".join(parts)


def _edge(
    dep: str,
    slug: str,
    source: tuple[int, int],
    target: tuple[int, int],
    spread: int,
    rows: int,
    pad: int,
) -> str:
    """One edge: a curve to the next column, else a path along a lane (see the module).

    ``pad``: how far right of its box the source's drawing reaches (a map step's stack).
    """
    (c1, r1), (c2, r2) = source, target
    sx, sy = _left(c1) + BOX_W + pad, _top(r1) + BOX_H / 2
    ex, ey = _left(c2) - 2, _top(r2) + BOX_H / 2
    ends = f'data-from="{escape(dep)}" data-to="{escape(slug)}"'
    if c2 - c1 <= 1:
        mid = (sx + ex) / 2
        path = f"M {sx} {sy:.1f} C {mid:.1f} {sy:.1f}, {mid:.1f} {ey:.1f}, {ex} {ey:.1f}"
        return f'<path class="edge" {ends} d="{path}" marker-end="url(#arrow)"/>'
    # The lane nearest to the middle of the two ends, among lanes 0..rows.
    lane = min(range(rows + 1), key=lambda k: (abs(_lane(k) - (sy + ey) / 2), k))
    ly = _lane(lane) + spread / 2
    gx1 = _left(c1) + BOX_W + GAP_X / 2 + spread
    gx2 = _left(c2) - GAP_X / 2 + spread
    path = " ".join(
        [
            f"M {sx} {sy:.1f}",
            _turn(gx1, sy, ly),
            _turn(gx2, ly, ey),
            f"L {ex} {ey:.1f}",
        ]
    )
    return f'<path class="edge long" {ends} d="{path}" marker-end="url(#arrow)"/>'


def _turn(gx: float, y1: float, y2: float) -> str:
    """Go right along y1 to the gap at ``gx``, up or down it to y2, turn right again.

    The corners are rounded; the path goes on from ``(gx + r, y2)``.
    """
    if abs(y2 - y1) < 1:
        return f"L {gx:.1f} {y1:.1f}"
    r = min(_CORNER, abs(y2 - y1) / 2)
    dy = r if y2 > y1 else -r
    return (
        f"L {gx - r:.1f} {y1:.1f} Q {gx:.1f} {y1:.1f} {gx:.1f} {y1 + dy:.1f}"
        f" L {gx:.1f} {y2 - dy:.1f} Q {gx:.1f} {y2:.1f} {gx + r:.1f} {y2:.1f}"
    )


def _node(step: StepView, x: int, y: int) -> str:
    slug = escape(step.step_slug)
    status = escape(step.status)
    kind = "map" if step.step_type == "map" else "single"
    title = escape(f"{step.step_slug}: {_label(step)}")
    name = fit(step.step_slug, BOX_W - 16, NAME_CHAR_W)
    name_title = f"<title>{slug}</title>" if name != step.step_slug else ""
    sub = escape(fit(_label(step), BOX_W - 8))
    stack = ""
    if kind == "map":
        stack = "".join(
            f'<rect class="box stack" x="{x + d}" y="{y - d}" width="{BOX_W}" height="{BOX_H}"'
            ' rx="6"/>'
            for d in (STACK, STACK // 2)
        )
    return (
        f'<a href="#step-{slug}"><g class="node s-{status} k-{kind}" data-step="{slug}"'
        f' data-status="{status}" data-kind="{kind}"><title>{title}</title>{stack}'
        f'<rect class="box" x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
        f'<text class="name" x="{x + 10}" y="{y + 19}">{name_title}{escape(name)}</text>'
        f'<text class="sub" x="{x + 10}" y="{y + 36}">{sub}</text>'
        "</g></a>"
    )

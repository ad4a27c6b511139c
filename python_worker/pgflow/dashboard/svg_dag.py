"""The flow's DAG as inline SVG, drawn on the server: one box per step, coloured by status.

Steps are laid out in columns by dependency depth (a root step in the first column, a
step one column right of its deepest dependency), in definition order within a column.
Each box is a ``<g class="node s-<status>" data-step=... data-status=...>`` linking to
the step's row on the page; map steps are drawn as a stack of boxes and say ``map``. An
edge goes from each dependency to its dependent. Colours come from the page's CSS
(``.s-<status>``). Every text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

from pgflow.observe.run_detail import StepView

BOX_W: Final = 168
BOX_H: Final = 46
GAP_X: Final = 56
GAP_Y: Final = 18
MARGIN: Final = 12


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


def _fit(text: str, width: int) -> str:
    """Cut ``text`` to about what fits in ``width`` pixels at the box's font size."""
    most = max(4, width // 7)
    return text if len(text) <= most else text[: most - 1] + "…"


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
    places: dict[str, tuple[int, int]] = {}
    for depth, column in columns.items():
        for row, step in enumerate(column):
            places[step.step_slug] = (
                MARGIN + depth * (BOX_W + GAP_X),
                MARGIN + row * (BOX_H + GAP_Y) + 4,
            )
    width = MARGIN * 2 + len(columns) * (BOX_W + GAP_X) - GAP_X + 8
    height = MARGIN * 2 + max(len(c) for c in columns.values()) * (BOX_H + GAP_Y) + 4
    parts = [
        f'<svg class="dag" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label="steps of the flow">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"'
        ' markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"'
        ' class="arrowhead"/></marker></defs>',
    ]
    for step in steps:
        x2, y2 = places[step.step_slug]
        for dep in step.deps:
            if dep not in places:
                continue
            x1, y1 = places[dep]
            sx, sy, ex, ey = x1 + BOX_W, y1 + BOX_H // 2, x2 - 2, y2 + BOX_H // 2
            mid = (sx + ex) // 2
            parts.append(
                f'<path class="edge" data-from="{escape(dep)}" data-to="{escape(step.step_slug)}"'
                f' d="M {sx} {sy} C {mid} {sy}, {mid} {ey}, {ex} {ey}" marker-end="url(#arrow)"/>'
            )
    for step in steps:
        parts.append(_node(step, *places[step.step_slug]))
    parts.append("</svg>")
    return "".join(parts)


def _node(step: StepView, x: int, y: int) -> str:
    slug = escape(step.step_slug)
    status = escape(step.status)
    kind = "map" if step.step_type == "map" else "single"
    title = escape(f"{step.step_slug}: {_label(step)}")
    name = escape(_fit(step.step_slug, BOX_W - 16))
    sub = escape(_fit(_label(step), BOX_W - 8))
    stack = ""
    if kind == "map":
        stack = "".join(
            f'<rect class="box stack" x="{x + d}" y="{y - d}" width="{BOX_W}" height="{BOX_H}"'
            ' rx="6"/>'
            for d in (6, 3)
        )
    return (
        f'<a href="#step-{slug}"><g class="node s-{status} k-{kind}" data-step="{slug}"'
        f' data-status="{status}" data-kind="{kind}"><title>{title}</title>{stack}'
        f'<rect class="box" x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
        f'<text class="name" x="{x + 10}" y="{y + 19}">{name}</text>'
        f'<text class="sub" x="{x + 10}" y="{y + 36}">{sub}</text>'
        "</g></a>"
    )

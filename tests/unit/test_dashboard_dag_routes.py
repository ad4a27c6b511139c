"""The DAG drawing: an edge that skips columns never passes behind a box; long slugs are cut.

Every edge's path is sampled point by point (its lines and Bézier curves) and no point may
fall inside a step's box (or a map step's stack).
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

from pgflow.dashboard.svg_dag import draw_dag
from pgflow.observe.run_detail import StepView

SVG = "{http://www.w3.org/2000/svg}"


def step(slug, deps=(), depth=0, kind="single"):
    return StepView(
        slug, kind, 0, tuple(deps), depth, "created", None, None, None, None, None, None, None, None
    )


def _points(d: str, samples: int = 40) -> list[tuple[float, float]]:
    """Points along an SVG path made of M, L, Q and C commands."""
    tokens = re.findall(r"[MLQC]|-?\d+(?:\.\d+)?", d)
    points: list[tuple[float, float]] = []
    here = (0.0, 0.0)
    i = 0
    while i < len(tokens):
        command = tokens[i]
        size = {"M": 1, "L": 1, "Q": 2, "C": 3}[command]
        values = [float(v) for v in tokens[i + 1 : i + 1 + 2 * size]]
        controls = [here] + [(values[n], values[n + 1]) for n in range(0, len(values), 2)]
        i += 1 + 2 * size
        if command == "M":
            here = controls[-1]
            points.append(here)
            continue
        for k in range(1, samples + 1):
            t = k / samples
            # de Casteljau: a line, a quadratic or a cubic curve alike.
            level = controls
            while len(level) > 1:
                level = [
                    (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
                    for a, b in itertools.pairwise(level)
                ]
            points.append(level[0])
        here = controls[-1]
    return points


def _boxes(root: ET.Element) -> dict[str, list[tuple[float, float, float, float]]]:
    """Per step, the rectangles drawn for it (its box and, for a map step, the stack)."""
    boxes: dict[str, list[tuple[float, float, float, float]]] = {}
    for node in root.iter(f"{SVG}g"):
        rects = [
            tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
            for r in node.findall(f"{SVG}rect")
        ]
        boxes[node.get("data-step")] = rects
    return boxes


def _inside(point: tuple[float, float], rect: tuple[float, float, float, float]) -> bool:
    x, y = point
    rx, ry, w, h = rect
    return rx + 1 < x < rx + w - 1 and ry + 1 < y < ry + h - 1


def test_edges_that_skip_columns_go_around_the_boxes_between():
    steps = [
        step("a"),
        step("x"),
        step("b", ["a"], 1),
        step("y", ["x"], 1, "map"),
        step("c", ["b"], 2),
        step("z", ["y"], 2),
        step("w", ["y"], 2),
        step("d", ["a", "c", "x"], 3),
        step("e", ["a", "z"], 3),
    ]
    root = ET.fromstring(draw_dag(steps))
    boxes = _boxes(root)
    paths = [p for p in root.iter(f"{SVG}path") if "edge" in p.get("class", "").split()]

    assert len(paths) == 10
    long_edges = {
        (p.get("data-from"), p.get("data-to"))
        for p in paths
        if "long" in p.get("class", "").split()
    }
    assert long_edges == {("a", "d"), ("x", "d"), ("a", "e")}
    for path in paths:
        crossed = {
            slug
            for point in _points(path.get("d"))
            for slug, rects in boxes.items()
            if any(_inside(point, rect) for rect in rects)
        }
        assert crossed == set(), (path.get("data-from"), path.get("data-to"), crossed)


def test_a_long_slug_is_cut_and_its_full_name_is_the_tooltip():
    slug = "normalise_every_customer_address_before_geocoding"
    root = ET.fromstring(draw_dag([step(slug), step("short", [slug], 1)]))
    names = {
        g.get("data-step"): next(t for t in g.findall(f"{SVG}text") if t.get("class") == "name")
        for g in root.iter(f"{SVG}g")
    }

    long_name = names[slug]
    assert long_name.find(f"{SVG}title").text == slug
    shown = "".join(long_name.itertext()).removeprefix(slug)
    assert shown.endswith("…") and slug.startswith(shown[:-1]) and len(shown) < len(slug)
    assert names["short"].find(f"{SVG}title") is None
    assert "".join(names["short"].itertext()) == "short"

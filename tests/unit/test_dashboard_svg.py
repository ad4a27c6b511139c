"""The DAG, timeline and bar chart drawings, and how attempts are rebuilt from events."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from pgflow.dashboard.svg_bars import draw_run_counts
from pgflow.dashboard.svg_dag import BOX_W, GAP_X, MARGIN, draw_dag
from pgflow.dashboard.svg_timeline import MAX_BARS, ROWS_PER_STEP, draw_timeline
from pgflow.observe.flow_stats import RunCountBucket
from pgflow.observe.run_attempts import Attempt, TaskView, attempts_of
from pgflow.observe.run_detail import StepView

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def step(slug, deps=(), depth=0, status="created", kind="single", total=None, left=None):
    return StepView(
        slug, kind, 0, tuple(deps), depth, status, total, left, None, None, None, None, None, None
    )


def test_the_dag_lays_steps_out_by_depth_with_an_edge_per_dependency():
    steps = [
        step("fetch", status="completed"),
        step("parse", ["fetch"], 1, "started", "map", 10, 4),
        step("other", depth=0, status="completed"),
        step("save", ["parse", "other"], 2),
    ]
    svg = draw_dag(steps)
    root = ET.fromstring(svg)  # well-formed XML
    ns = {"s": "http://www.w3.org/2000/svg"}
    nodes = {g.get("data-step"): g for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert {k: (g.get("data-status"), g.get("data-kind")) for k, g in nodes.items()} == {
        "fetch": ("completed", "single"),
        "parse": ("started", "map"),
        "other": ("completed", "single"),
        "save": ("created", "single"),
    }
    box_x = {k: float(g.findall("s:rect", ns)[-1].get("x")) for k, g in nodes.items()}
    assert box_x["fetch"] == box_x["other"] == MARGIN
    assert box_x["parse"] == MARGIN + BOX_W + GAP_X
    assert box_x["save"] == MARGIN + 2 * (BOX_W + GAP_X)
    edges = sorted(
        (p.get("data-from"), p.get("data-to"))
        for p in root.iter("{http://www.w3.org/2000/svg}path")
        if p.get("class", "").split()[:1] == ["edge"]
    )
    assert edges == [("fetch", "parse"), ("other", "save"), ("parse", "save")]
    assert "6/10 · map" in svg
    assert draw_dag([]) == ""


def test_texts_are_escaped():
    attempt = Attempt(
        "s", 0, 1, T0, None, T0 + timedelta(seconds=1), "failed", "<script>x</script>"
    )
    svg = draw_timeline([attempt], T0, T0 + timedelta(seconds=2))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)


def test_the_timeline_has_a_bar_per_attempt_and_counts_the_rest():
    steps = [f"s{n}" for n in range(MAX_BARS // ROWS_PER_STEP + 2)]
    attempts = [
        Attempt(s, i, 1, T0, T0 + timedelta(seconds=1), T0 + timedelta(seconds=2), "completed")
        for s in steps
        for i in range(ROWS_PER_STEP + 1)
    ]
    svg = draw_timeline(attempts, T0, T0 + timedelta(seconds=3))
    # Each step: ROWS_PER_STEP bars and a note row; MAX_BARS rows in all, the rest counted.
    per_step = ROWS_PER_STEP + 1
    bars = sum(1 for row in range(MAX_BARS) if row % per_step != ROWS_PER_STEP)
    assert len(re.findall(r'<g class="attempt o-completed"', svg)) == bars
    assert "1 more attempts of s0" in svg
    assert f"{len(steps) * per_step - MAX_BARS} more rows not drawn" in svg
    assert draw_timeline([], T0, T0) == ""


def task(status, attempts, queued=T0, started=None, ended=None, error=None):
    return TaskView(
        "s", 0, status, attempts, error, None, queued, started, ended, 0, None, None, None
    )


def event(kind, attempt, at, error=None):
    details = {"attempt": attempt}
    if error:
        details["error_message"] = error
    return {"step_slug": "s", "task_index": 0, "event": kind, "details": details, "created_at": at}


def test_attempts_are_rebuilt_from_the_task_and_its_events():
    t1, t2, t3 = (T0 + timedelta(seconds=n) for n in (10, 20, 30))
    events = [event("task:failed", 1, t1, "E: one"), event("task:requeued", 2, t2)]
    running = attempts_of([task("started", 3, started=t3)], events)
    assert [(a.attempt, a.outcome, a.queued_at, a.ended_at, a.error) for a in running] == [
        (1, "failed", T0, t1, "E: one"),
        (2, "requeued", t1, t2, None),
        (3, "running", t2, None, None),
    ]
    waiting = attempts_of([task("queued", 1, error="E: one")], events[:1])
    assert [(a.attempt, a.outcome) for a in waiting] == [(1, "failed"), (2, "queued")]
    exhausted = attempts_of([task("failed", 1, started=T0, ended=t1, error="E: one")], events[:1])
    assert [(a.attempt, a.outcome, a.started_at) for a in exhausted] == [(1, "failed", T0)]
    never = attempts_of([task("cancelled", 0, ended=t1)], [])
    assert [(a.attempt, a.outcome) for a in never] == [(1, "cancelled")]
    # Events of the task before it was queued again (retry_run) are its earlier attempts.
    fresh = attempts_of([task("completed", 1, queued=t2, started=t2, ended=t3)], events[:1])
    assert [(a.attempt, a.outcome, a.before_retry) for a in fresh] == [
        (1, "failed", True),
        (1, "completed", False),
    ]


def test_the_bar_chart_has_a_bucket_per_interval():
    buckets = [
        RunCountBucket(T0 + timedelta(hours=n), n, n, max(n - 1, 0), min(n, 1), 0, 0, None, None)
        for n in range(4)
    ]
    svg = draw_run_counts(buckets)
    ET.fromstring(svg)
    assert re.findall(r'data-started="(\d+)" data-finished="(\d+)"', svg) == [
        (str(n), str(n)) for n in range(4)
    ]
    assert draw_run_counts([]) == ""

"""The timeline: backoff before a retry, dead workers, attempts before a retry, rows per step.

The attempts come from :func:`pgflow.observe.run_attempts.attempts_of` (the task rows and
their events); the drawing's segments are read back from the SVG.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from pgflow.dashboard.svg_timeline import BAR_W, LABEL_W, ROWS_PER_STEP, draw_timeline
from pgflow.observe.run_attempts import Attempt, TaskView, attempts_of, retry_delay

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
SVG = "{http://www.w3.org/2000/svg}"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def task(status, attempts, queued=T0, started=None, ended=None, **more):
    return TaskView(
        "s", 0, status, attempts, None, None, queued, started, ended, 0, None, None, None, **more
    )


def failed(attempt, seconds, retry=True, error="E: boom"):
    details = {"attempt": attempt, "error_message": error, "retry": retry}
    return {
        "step_slug": "s",
        "task_index": 0,
        "event": "task:failed",
        "details": details,
        "created_at": at(seconds),
    }


def step_started(seconds):
    return {
        "step_slug": "s",
        "task_index": None,
        "event": "step:started",
        "details": None,
        "created_at": at(seconds),
    }


def segments(svg: str) -> list[tuple[str, float, float]]:
    """(kind, start second, end second) of every segment, on a 100 s axis from T0."""
    root = ET.fromstring(svg)
    found = []
    for rect in root.iter(f"{SVG}rect"):
        classes = rect.get("class", "").split()
        if classes[:1] == ["seg"]:
            left = (float(rect.get("x")) - LABEL_W) / BAR_W * 100
            width = float(rect.get("width")) / BAR_W * 100
            found.append((classes[1], round(left, 1), round(left + width, 1)))
    return found


def test_the_delay_before_a_retry_doubles_from_the_retry_budgets_start():
    assert retry_delay(2, 1, 0) == timedelta(seconds=4)
    assert retry_delay(2, 2, 0) == timedelta(seconds=8)
    assert retry_delay(2, 4, 3) == timedelta(seconds=4)  # after retry_run: offset 3
    assert retry_delay(1.5, 1, 0) == timedelta(seconds=3)
    assert retry_delay(5, 400, 0) == timedelta(seconds=2**31 - 1)


def test_an_attempt_after_a_failure_waits_for_its_backoff():
    tasks = [task("started", 2, started=at(30))]
    [first, second] = attempts_of(tasks, [failed(1, 10)], base_delays={"s": 5.0})

    assert (first.outcome, first.retry_due_at) == ("failed", None)
    assert (second.attempt, second.queued_at, second.retry_due_at) == (2, at(10), at(20))
    # Without the step's base delay nothing is known of the backoff.
    [_, unknown] = attempts_of(tasks, [failed(1, 10)])
    assert unknown.retry_due_at is None
    # A failure that is not retried is followed by no backoff.
    [_, after] = attempts_of(tasks, [failed(1, 10, retry=False)], base_delays={"s": 5.0})
    assert after.retry_due_at is None


def test_the_backoff_is_drawn_apart_from_run_time():
    retried = Attempt("s", 0, 2, at(10), at(40), at(45), "completed", retry_due_at=at(30))
    earlier = Attempt("s", 0, 2, at(10), None, at(45), "failed", "E: x", retry_due_at=at(30))

    assert segments(draw_timeline([retried], T0, at(100))) == [
        ("backoff", 10.0, 30.0),
        ("queued", 30.0, 40.0),
        ("ran", 40.0, 45.0),
    ]
    # An earlier attempt's start is not kept: hatched only from when it could start.
    assert segments(draw_timeline([earlier], T0, at(100))) == [
        ("backoff", 10.0, 30.0),
        ("unknown-start", 30.0, 45.0),
    ]
    waiting = Attempt("s", 0, 3, at(50), None, None, "queued", retry_due_at=at(200))
    svg = draw_timeline([waiting], T0, at(100))
    assert segments(svg) == [("backoff", 50.0, 100.0)]
    assert svg.endswith(">waiting to retry</text></g></svg>")
    due = Attempt("s", 0, 3, at(50), None, None, "queued", retry_due_at=at(70))
    svg = draw_timeline([due], T0, at(100))
    assert segments(svg) == [("backoff", 50.0, 70.0), ("queued", 70.0, 100.0)]
    assert svg.endswith(">queued (retry due)</text></g></svg>")


def test_a_task_held_by_a_dead_worker_is_not_drawn_as_running():
    dead = task(
        "started", 1, started=at(5), worker_dead=True, worker_heartbeat_at=at(20), sweep_at=at(95)
    )
    [attempt] = attempts_of([dead], [])
    assert (attempt.outcome, attempt.dead_since) == ("held", at(20))

    svg = draw_timeline([attempt], T0, at(100))
    assert segments(svg) == [("queued", 0.0, 5.0), ("ran", 5.0, 20.0), ("held", 20.0, 100.0)]
    assert 'data-outcome="held"' in svg and "held by a dead worker" in svg
    assert 'data-outcome="running"' not in svg


def test_attempts_before_a_retry_of_the_run_are_kept():
    events = [step_started(0), failed(1, 10), failed(2, 20, retry=False), step_started(50)]
    after_retry = task("started", 3, queued=at(50), started=at(55), attempt_offset=2)
    attempts = attempts_of([after_retry], events, retried_at=[at(50)], base_delays={"s": 1.0})

    assert [(a.attempt, a.outcome, a.before_retry) for a in attempts] == [
        (1, "failed", True),
        (2, "failed", True),
        (3, "running", False),
    ]
    assert [(a.queued_at, a.retry_due_at) for a in attempts] == [
        (at(0), None),
        (at(10), at(12)),  # 1 s * 2^1 after attempt 1
        (at(50), None),  # the retry of the run starts it again at once
    ]
    svg = draw_timeline(attempts, T0, at(100), retried_at=[at(50)])
    root = ET.fromstring(svg)
    marks = [g for g in root.iter(f"{SVG}g") if g.get("class") == "retry-mark"]
    assert [m.get("data-at") for m in marks] == [at(50).isoformat()]
    assert len(re.findall(r'<g class="attempt o-failed before-retry"', svg)) == 2


def test_a_large_step_keeps_room_for_the_steps_after_it():
    items = [
        Attempt("items", i, 1, T0, at(1), at(2), "failed" if i == 100 else "completed", "E: x")
        for i in range(120)
    ]
    later = [Attempt("save", 0, 1, at(2), at(3), at(4), "completed")]

    svg = draw_timeline(items + later, T0, at(10), not_read={"items": 900})

    drawn = re.findall(r'<g class="attempt [^"]*" data-step="(\w+)" data-task="(\d+)"', svg)
    assert len([s for s, _ in drawn if s == "items"]) == ROWS_PER_STEP
    assert ("items", "100") in drawn  # the failed one is kept
    assert ("save", "0") in drawn
    assert f"{120 - ROWS_PER_STEP} more attempts of items" in svg
    assert "900 more tasks of items not read" in svg

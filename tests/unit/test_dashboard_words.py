"""The sentences of the runs list and the time formats (pgflow.observe.run_words)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from pgflow.observe.run_words import (
    describe,
    format_age,
    format_duration,
    format_time,
    short_error,
)


@pytest.mark.parametrize(
    ("facts", "said"),
    [
        ({"status": "completed", "took_seconds": 4.2}, "completed in 4.2 s"),
        ({"status": "completed", "took_seconds": 200.0}, "completed in 3 min 20 s"),
        ({"status": "completed"}, "completed"),
        (
            {"status": "failed", "failed_step": "charge", "failed_error": "CardDeclined: no"},
            "failed at charge: CardDeclined",
        ),
        ({"status": "failed", "failed_step": "charge"}, "failed at charge"),
        ({"status": "failed"}, "failed"),
        (
            {"status": "paused", "by_actor": "alice", "by_reason": "look"},
            "paused by alice: look",
        ),
        ({"status": "cancelled", "by_actor": "bob"}, "cancelled by bob"),
        ({"status": "cancelled"}, "cancelled"),
        (
            {"status": "queued", "queued_behind": 2, "concurrency_key": "k"},
            "queued behind 2 runs (key k)",
        ),
        (
            {"status": "queued", "queued_behind": 1, "concurrency_key": "k"},
            "queued behind 1 run (key k)",
        ),
        ({"status": "queued", "queued_behind": 0, "concurrency_key": "k"}, "queued (key k)"),
        (
            {
                "status": "expired",
                "deadline": datetime(2024, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2))),
            },
            "expired (deadline 2024-05-01 10:00:00 UTC)",
        ),
        ({"status": "started"}, "started"),
        (
            {"status": "started", "running": [["parse", "map", 1792, 722]]},
            "running parse: 1,070 of 1,792 tasks",
        ),
        (
            {"status": "started", "running": [["a", "single", 1, 1], ["b", "single", 1, 0]]},
            "running a, b",
        ),
        (
            {"status": "started", "running": [[s, "single", 1, 1] for s in "abcde"]},
            "running a, b, c and 2 more steps",
        ),
        (
            {
                "status": "started",
                "running": [["fetch", "single", 1, 1]],
                "retry_step": "fetch",
                "retry_attempt": 2,
                "retry_max": 3,
                "retry_error": "TimeoutError: slow",
                "retry_due_in": 39.2,
                "retry_count": 1,
            },
            "retrying fetch (attempt 2 of 3, next in 40 s): TimeoutError",
        ),
        (
            {
                "status": "started",
                "retry_step": "fetch",
                "retry_attempt": 3,
                "retry_max": 3,
                "retry_error": "Task stalled: given up",
                "retry_due_in": None,
                "retry_count": 3,
            },
            "retrying fetch (attempt 3 of 3): Task stalled: given up (+2 more tasks retrying)",
        ),
        (
            {
                "status": "started",
                "wait_step": "approve",
                "wait_kind": "signal",
                "wait_signal": "approved",
                "wait_age": 3 * 3600 + 59,
            },
            "waiting for signal approved since 3 h",
        ),
        (
            {
                "status": "started",
                "wait_step": "approve",
                "wait_kind": "signal",
                "wait_signal": "approved",
                "wait_age": 10,
                "wait_left": 7200,
            },
            "waiting for signal approved since 10 s (times out in 2 h)",
        ),
        (
            {"status": "started", "wait_step": "nap", "wait_kind": "timer", "wait_left": 300},
            "waiting for timer of nap: due in 5 min",
        ),
        (
            {
                "status": "started",
                "running": [["a", "single", 1, 1]],
                "wait_step": "nap",
                "wait_kind": "timer",
                "wait_left": -1,
            },
            "running a; waiting for timer of nap: due now",
        ),
    ],
)
def test_describe(facts, said):
    assert describe(facts) == said


@pytest.mark.parametrize(
    ("running", "retrying", "said"),
    [
        (
            [["process", "map", 30, 5, 5]],
            False,
            "running process: 25 of 30 tasks, 5 held by a dead worker"
            " (awaiting the stalled-task sweep)",
        ),
        (
            [["charge", "single", 1, 1, 1], ["ship", "single", 1, 1, 0]],
            False,
            "running charge: held by a dead worker (awaiting the stalled-task sweep), ship",
        ),
        ([["process", "map", 30, 5, 0]], False, "running process: 25 of 30 tasks"),
        (
            [[s, "single", 1, 1, 1 if s == "e" else 0] for s in "abcde"],
            False,
            "running a, b, c and 2 more steps (1 more tasks held by a dead worker"
            " (awaiting the stalled-task sweep))",
        ),
        (
            [["fetch", "map", 10, 10, 2]],
            True,
            "retrying fetch (attempt 2 of 3): TimeoutError;"
            " 2 tasks held by a dead worker (awaiting the stalled-task sweep)",
        ),
    ],
)
def test_tasks_held_by_a_dead_worker_are_said(running, retrying, said):
    facts = {"status": "started", "running": running}
    if retrying:
        facts |= {
            "retry_step": "fetch",
            "retry_attempt": 2,
            "retry_max": 3,
            "retry_error": "TimeoutError: slow",
            "retry_count": 1,
        }
    assert describe(facts) == said


@pytest.mark.parametrize(
    ("text", "short"),
    [
        ("CardDeclined: card 4242 declined", "CardDeclined"),
        ("requests.exceptions.Timeout: read", "requests.exceptions.Timeout"),
        ("KeyError", "KeyError"),
        ("Task stalled: given up after 3 requeues", "Task stalled: given up after 3 requeues"),
        ("  \nValueError: x\nmore", "ValueError"),
        ("x " * 60, ("x " * 60).strip()[:79] + "…"),
        ("", ""),
        (None, ""),
    ],
)
def test_short_error(text, short):
    assert short_error(text) == short


def test_formats():
    assert [format_age(s) for s in (0, 59.9, 60, 3599, 3600, 86399, 86400 * 3)] == [
        "0 s",
        "59 s",
        "1 min",
        "59 min",
        "1 h",
        "23 h",
        "3 d",
    ]
    assert format_age(39.01, ceil=True) == "40 s"
    assert format_age(-5) == "0 s"
    assert [format_duration(s) for s in (0.04, 4.25, 42.4, 60, 3725, 90000)] == [
        "0.0 s",
        "4.2 s",
        "42 s",
        "1 min",
        "1 h 2 min",
        "1 d 1 h",
    ]
    assert format_time(datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2024-01-02 03:04:05 UTC"

"""The words of keyed starts on the command line: durations, start notes, status lines,
run timings and cells (pure functions, no database, no client)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from pgflow.cli import formatting, run_limits
from pgflow.cli.durations import parse_deadline, parse_duration, two_units
from pgflow.cli.formatting import when
from pgflow.client import RunDeadline, RunEvent, RunSlot, StartedRun

RUN_ID = "7f3e4c1a-0000-4000-8000-000000000001"
HOLDER = "0e1d2c3b-0000-4000-8000-000000000002"
OTHER = "0e1d2c3b-0000-4000-8000-000000000003"
AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


# ---------------------------------------------------------------- durations


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("15m", 900),
        ("2h", 7200),
        ("1d", 86400),
        ("1h30m", 5400),
        ("1d 12h", 129600),
        ("1H30M", 5400),
        ("2d3h4m5s", 2 * 86400 + 3 * 3600 + 4 * 60 + 5),
    ],
)
def test_durations_read_whole_units_in_order(text, seconds):
    assert parse_duration(text) == timedelta(seconds=seconds)
    assert parse_deadline(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is not a duration"),
        ("10", "is not a duration"),  # a bare number: which unit?
        ("1x", "is not a duration"),
        ("30m1h", "is not a duration"),  # units out of order
        ("1.5h", "is not a duration"),
        ("-1h", "is not a duration"),
        ("0s", "is zero"),
        ("0h0m", "is zero"),
        ("9999999999d", "is too long"),  # beyond timedelta: ValueError, not OverflowError
    ],
)
def test_bad_durations_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_duration(text)


def test_deadlines_may_be_timestamps_with_an_offset():
    assert parse_deadline("2026-05-01T12:00:00+02:00") == datetime(
        2026, 5, 1, 12, tzinfo=timezone(timedelta(hours=2))
    )
    assert parse_deadline(" 2026-05-01T10:00:00Z ") == datetime(2026, 5, 1, 10, tzinfo=UTC)
    with pytest.raises(ValueError, match="has no UTC offset"):
        parse_deadline("2026-05-01T12:00:00")
    with pytest.raises(ValueError, match="is not an ISO 8601 timestamp"):
        parse_deadline("2026-13-01T12:00:00+00:00")


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (4800, "1h 20m"),
        (4859.9, "1h 20m"),  # cut down, never rounded up
        (45, "45s"),
        (59.9, "59s"),
        (125, "2m 5s"),
        (3600, "1h"),
        (90061, "1d 1h"),
        (86400 + 300, "1d"),  # only the next unit down
        (0, "0s"),
        (-5, "0s"),
    ],
)
def test_time_left_reads_in_two_units(seconds, shown):
    assert two_units(seconds) == shown


# ---------------------------------------------------------------- wording


def run(status="started", **fields: Any) -> StartedRun:
    base: dict[str, Any] = {
        "run_id": RUN_ID,
        "flow_slug": "billing",
        "status": status,
        "input": {},
        "output": None,
        "remaining_steps": 1,
        "started_at": AT,
        "completed_at": None,
        "failed_at": None,
    }
    return StartedRun(**{**base, **fields})


QUEUE_SLOT = RunSlot("account:7", 1, "queue", 2, (HOLDER,))
QUEUED_NOTE = f"position 2 for key account:7, slot held by run {HOLDER}"


def event(name: str) -> RunEvent:
    return RunEvent(1, RUN_ID, None, None, name, "app", None, None, AT)


def ended_queued(status="expired", events=("run:queued", "run:expired"), **fields: Any):
    """A run created queued at AT that ended 6.4 s later, and its events."""
    end = {"expired": "expired_at", "cancelled": "cancelled_at"}[status]
    later = AT + timedelta(seconds=6.4)
    state = run(status, queued_at=AT, **{end: later, **fields})
    return state, [event(name) for name in events]


def test_begun_text_says_started_or_queued_and_where():
    assert run_limits.begun_text(RUN_ID, "started", None, of=" of flow billing") == (
        f"started run {RUN_ID} of flow billing"
    )
    assert run_limits.begun_text(RUN_ID, "queued", QUEUE_SLOT, of=" of flow billing") == (
        f"queued run {RUN_ID} of flow billing ({QUEUED_NOTE})"
    )
    assert run_limits.begun_text(RUN_ID, "queued", None) == (
        f"queued run {RUN_ID} (waiting for a slot)"
    )
    assert run_limits.begun_text(RUN_ID, "queued", QUEUE_SLOT, notes=[f"rerun of {OTHER}"]) == (
        f"queued run {RUN_ID} (rerun of {OTHER}; {QUEUED_NOTE})"
    )
    assert run_limits.begun_text(RUN_ID, "completed", None) == (
        f"started run {RUN_ID} (now completed)"
    )


def test_a_run_never_started_when_queued_and_no_run_started_event():
    assert run_limits.never_started(run("queued", queued_at=AT), [])
    assert run_limits.never_started(*ended_queued())
    assert run_limits.never_started(*ended_queued("cancelled", ("run:queued", "run:cancelled")))
    # it left the queue: run:started, though its steps may show no started_at (waits only)
    assert not run_limits.never_started(*ended_queued(events=("run:queued", "run:started")))
    assert not run_limits.never_started(run("expired", expired_at=AT), [event("run:started")])
    # no events read: nothing claimed
    assert not run_limits.never_started(ended_queued()[0], [])


def test_only_a_run_with_started_at_not_after_queued_at_may_have_ended_queued():
    state, _ = ended_queued()
    assert run_limits.may_have_ended_queued(state)
    left_queue = ended_queued(started_at=AT + timedelta(seconds=1))[0]
    assert not run_limits.may_have_ended_queued(left_queue)
    assert not run_limits.may_have_ended_queued(run("expired", expired_at=AT))  # never queued
    assert not run_limits.may_have_ended_queued(run("queued", queued_at=AT))  # not finished


def test_run_timing_of_a_queued_run_and_of_one_that_ended_in_the_queue():
    now = AT + timedelta(seconds=8)
    assert formatting.run_timing(run("queued", queued_at=AT), now=now) == (
        f"queued since {when(AT)}, waiting for 8.0 s"
    )
    state, _ = ended_queued()
    assert formatting.run_timing(state, never_started=True) == (
        f"expired at {when(state.expired_at)}, never started: it waited in the queue for 6.4 s"
    )
    assert formatting.run_timing(state) == f"started {when(AT)}, took 6.4 s"
    assert formatting.run_timing(run(), now=now) == f"started {when(AT)}, running for 8.0 s"


def test_runs_cells_of_queued_runs_and_of_runs_that_ended_in_the_queue():
    state, _ = ended_queued()
    assert formatting.started_cell(run("queued", queued_at=AT)) == "queued"
    assert formatting.took_cell(run("queued", queued_at=AT)) == "-"
    assert (formatting.started_cell(state, True), formatting.took_cell(state, True)) == (
        "never",
        "-",
    )
    assert (formatting.started_cell(state), formatting.took_cell(state)) == (when(AT), "6.4 s")


def test_start_notes_say_duplicate_and_queued():
    assert run_limits.start_notes(run(), None) == []
    assert run_limits.start_notes(run("completed", duplicate=True), None) == [
        f"already started: run {RUN_ID} (completed)"
    ]
    assert run_limits.start_notes(run("queued", duplicate=True), QUEUE_SLOT) == [
        f"already started: run {RUN_ID} (queued)",
        f"queued: position 2 for key account:7, slot held by run {HOLDER}",
    ]
    two = RunSlot("account:7", 2, "queue", 1, (HOLDER, OTHER))
    assert run_limits.start_notes(run("queued"), two) == [
        f"queued: position 1 for key account:7, slots held by runs {HOLDER}, {OTHER}"
    ]


def test_status_lines_of_a_queued_run_with_a_deadline():
    state = run("queued", concurrency_key="account:7", idempotency_key="order-42", deadline=AT)
    ahead = RunDeadline(AT, 4830.0, None)

    assert run_limits.status_lines(state, QUEUE_SLOT, ahead) == [
        ("key", "account:7 (limit 1, on limit queue)"),
        ("queue", f"position 2 for key account:7, slot held by run {HOLDER}"),
        ("idem key", "order-42"),
        ("deadline", f"in 1h 20m ({when(AT)})"),
    ]


def test_status_lines_of_a_slot_holder_and_of_a_key_without_limit():
    holding = RunSlot("account:7", 2, "reject", None, (RUN_ID, HOLDER))
    assert run_limits.status_lines(run(), holding, None) == [
        ("key", "account:7 (limit 2, on limit reject)"),
        ("slots", f"2 of 2 held by runs {RUN_ID} (this run), {HOLDER}"),
    ]
    unlimited = RunSlot("account:7", None, "queue", None, ())
    assert run_limits.status_lines(run(), unlimited, None) == [
        ("key", "account:7 (no concurrency limit)")
    ]
    # a finished run: the key only, no slots
    assert run_limits.status_lines(run("completed"), holding, None) == [
        ("key", "account:7 (limit 2, on limit reject)")
    ]


def test_status_lines_of_a_passed_deadline_and_of_an_expired_run():
    passed = RunDeadline(AT, -330.0, None)
    assert run_limits.status_lines(run("paused", deadline=AT), None, passed) == [
        (
            "deadline",
            f"passed 5m 30s ago ({when(AT)}): the run is paused until the next tick expires it",
        )
    ]
    expired = run("expired", deadline=AT, expired_at=AT + timedelta(seconds=3))
    assert run_limits.status_lines(expired, None, None) == [
        ("expired", f"at {when(AT + timedelta(seconds=3))} (deadline {when(AT)})")
    ]
    assert run_limits.status_lines(run("completed", deadline=AT), None, None) == []

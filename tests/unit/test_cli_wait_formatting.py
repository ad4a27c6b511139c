"""How ``pgflow status`` and ``pgflow signal`` show waits and signals, without a database:
the compact duration, the note of a waiting step (signal, timer, overdue), and the line
about a stored signal.

Against a real database: tests/integration/test_cli_signal.py.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from pgflow.cli.formatting import compact_duration, wait_note, when
from pgflow.cli.signal import describe
from pgflow.client import RunWait, SignalResult

SINCE = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
RUN_ID = str(uuid.uuid4())


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "-"),
        (0, "0s"),
        (0.9, "0s"),
        (45, "45s"),
        (59.99, "59s"),
        (60, "1m"),
        (12 * 60 + 59, "12m"),
        (3600, "1h"),
        (3 * 3600 + 59 * 60, "3h"),  # cut down, not rounded up
        (21 * 3600, "21h"),
        (86399, "23h"),
        (86400, "1d"),
        (2 * 86400 + 5 * 3600, "2d"),
        (-5, "0s"),
    ],
)
def test_compact_duration_uses_the_largest_whole_unit(seconds, text):
    assert compact_duration(seconds) == text


def signal_wait(waited: float, left: float | None) -> RunWait:
    deadline = None if left is None else SINCE + timedelta(seconds=waited + left)
    return RunWait("approve", "signal", "approved", SINCE, deadline, None, None, waited, left)


def timer_wait(waited: float, left: float | None) -> RunWait:
    deadline = None if left is None else SINCE + timedelta(seconds=waited + left)
    return RunWait("cool_off", "timer", None, SINCE, deadline, None, None, waited, left)


def test_a_signal_wait_with_a_timeout_says_since_when_and_until_when():
    assert (
        wait_note(signal_wait(3 * 3600, 21 * 3600))
        == "waiting for signal approved since 3h, times out in 21h"
    )


def test_a_signal_wait_without_timeout_has_no_times_out_part():
    assert wait_note(signal_wait(45, None)) == "waiting for signal approved since 45s"


def test_an_overdue_signal_wait_says_the_next_tick_fires_it():
    assert wait_note(signal_wait(600, -12)) == (
        "waiting for signal approved since 10m, timeout due (since 12s; fires at the next tick)"
    )


def test_a_timer_says_until_when_and_how_long_left():
    wait = timer_wait(60, 2 * 3600 + 30)
    assert wait_note(wait) == f"sleeping until {when(wait.deadline)}, due in 2h"


def test_an_overdue_timer_says_it_is_due_now():
    wait = timer_wait(60, -3)
    assert wait_note(wait) == (
        f"sleeping until {when(wait.deadline)}, due now (since 3s; fires at the next tick)"
    )


def test_a_waiting_record_knows_it_waits():
    assert signal_wait(1, None).waiting
    resolved = RunWait("a", "signal", "x", SINCE, None, SINCE, "signal", 1.0, None)
    assert not resolved.waiting


def signal_result(status: str, step: str | None, duplicate: bool, key: str | None = None):
    return SignalResult(
        signal_id=7,
        run_id=RUN_ID,
        signal_name="approved",
        payload={"by": "alice"},
        idempotency_key=key,
        status=status,
        received_at=SINCE,
        taken_at=SINCE if step else None,
        taken_by_step=step,
        actor="cli:tester",
        reason=None,
        duplicate=duplicate,
    )


def test_describe_a_taken_a_pending_and_a_duplicate_signal():
    assert describe(signal_result("taken", "approve", False)) == (
        f"signal 7 approved of run {RUN_ID}: taken by step approve"
    )
    assert describe(signal_result("pending", None, False)) == (
        f"signal 7 approved of run {RUN_ID}: pending (no step waits for it yet)"
    )
    assert describe(signal_result("taken", "approve", True, key="k1")) == (
        f"signal 7 approved of run {RUN_ID}: taken by step approve (duplicate: already sent "
        "with idempotency key k1, nothing new stored)"
    )


def test_signal_result_from_a_row():
    row = (
        7,
        uuid.UUID(RUN_ID),
        "approved",
        None,
        None,
        "pending",
        SINCE,
        None,
        None,
        "app",
        None,
        0,
    )
    assert SignalResult.from_row(row) == SignalResult(
        7, RUN_ID, "approved", None, None, "pending", SINCE, None, None, "app", None, False
    )

"""How ``pgflow status`` and ``pgflow signal`` show waits and signals, without a database:
the compact duration, the note of a waiting step (signal, timer, overdue: at the next tick,
or when a paused run is resumed), the line about a stored signal and why a pending one
was not taken, and the check of ``--payload`` (JSON text kept as written).

Against a real database: tests/integration/test_cli_signal.py.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import click
import pytest

from pgflow.cli.formatting import compact_duration, wait_note, when
from pgflow.cli.signal import UNKNOWN_WHY, describe, payload_option, pending_why
from pgflow.client import RunWait, SignalResult
from pgflow.client.signal_records import RawJson

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


def test_an_overdue_wait_of_a_paused_run_fires_when_the_run_is_resumed():
    timer = timer_wait(60, -3)
    assert wait_note(signal_wait(600, -12), paused=True) == (
        "waiting for signal approved since 10m, timeout due (since 12s; fires when the run "
        "is resumed)"
    )
    assert wait_note(timer, paused=True) == (
        f"sleeping until {when(timer.deadline)}, due now (since 3s; fires when the run is resumed)"
    )
    assert wait_note(signal_wait(60, 3600), paused=True) == (
        "waiting for signal approved since 1m, times out in 1h"
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
    assert describe(signal_result("pending", None, False), "no step waits for approved yet") == (
        f"signal 7 approved of run {RUN_ID}: pending: no step waits for approved yet"
    )
    assert describe(signal_result("pending", None, False)) == (
        f"signal 7 approved of run {RUN_ID}: pending: no waiting step took it (none waits "
        "for that name yet, its payload does not match, or the run is paused)"
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


def resolved_wait(step: str, name: str) -> RunWait:
    return RunWait(step, "signal", name, SINCE, None, SINCE, "signal", 1.0, None)


def waiting_for(step: str, name: str) -> RunWait:
    return RunWait(step, "signal", name, SINCE, None, None, None, 1.0, None)


def test_why_a_signal_is_pending():
    timer = RunWait("cool_off", "timer", None, SINCE, None, None, None, 1.0, 10.0)
    others = [resolved_wait("first", "approved"), waiting_for("other", "rejected"), timer]

    assert pending_why("approved", "started", others) == "no step waits for approved yet"
    assert pending_why("approved", "started", []) == "no step waits for approved yet"
    assert pending_why("approved", "started", [*others, waiting_for("approve", "approved")]) == (
        "step approve waits for approved but the payload does not match its signal_match"
    )
    assert (
        pending_why(
            "approved", "started", [waiting_for("a", "approved"), waiting_for("b", "approved")]
        )
        == "steps a, b wait for approved but the payload matches none of their signal_match"
    )
    paused = pending_why("approved", "paused", [waiting_for("approve", "approved")])
    assert paused == (
        "the run is paused (a step waiting for approved takes it when the run is resumed, "
        "if the payload matches its signal_match)"
    )
    assert pending_why("approved", "completed", []) == (
        "the run is completed: no step will take it"  # a duplicate of an old send
    )
    assert pending_why("approved", None, []) == UNKNOWN_WHY
    assert pending_why("approved", "started", None) == UNKNOWN_WHY


@pytest.mark.parametrize(
    "text", ["1.10", '{"n": 1e400}', " [0.1000000000000000055511151231257827] ", "null"]
)
def test_the_payload_option_keeps_the_text_as_written(text):
    assert payload_option(text) == RawJson(text)


def test_the_payload_option_reads_a_file_as_written(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"amount": 1.10}\n', encoding="utf-8")
    assert payload_option(f"@{path}") == RawJson('{"amount": 1.10}\n')
    with pytest.raises(click.BadParameter, match="cannot read"):
        payload_option(f"@{tmp_path / 'missing.json'}")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{by: alice}", "Expecting property name"),
        ("", "Expecting value"),
        ("[1] [2]", "Extra data"),
        ("NaN", "NaN is not a JSON value"),
        ('{"x": Infinity}', "Infinity is not a JSON value"),
        ("-Infinity", "-Infinity is not a JSON value"),
        ('{"a\\u0000": 1}', "jsonb cannot store"),
        ('["\\udc00"]', "unpaired surrogate"),
    ],
)
def test_the_payload_option_refuses_what_postgresql_refuses(text, why):
    with pytest.raises(click.BadParameter, match=why) as error:
        payload_option(text)
    assert "--payload is not JSON" in str(error.value)


def test_a_paired_surrogate_escape_is_json():
    assert payload_option('"\\ud83d\\ude00"') == RawJson('"\\ud83d\\ude00"')

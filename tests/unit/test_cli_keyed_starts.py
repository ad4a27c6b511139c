"""`pgflow start` keys and deadlines, and what `pgflow status` says of keys, slots and
deadlines, without a database: duration and timestamp parsing, the wording of notes and
status lines, and what the start command passes to the client (a fake)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from pgflow.cli import main as main_module
from pgflow.cli import run_limits
from pgflow.cli.durations import parse_deadline, parse_duration, two_units
from pgflow.cli.formatting import when
from pgflow.cli.main import main
from pgflow.client import RunDeadline, RunSlot, StartedRun
from pgflow.errors import ConcurrencyLimitReached

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


# ---------------------------------------------------------------- pgflow start


class FakeClient:
    """Stands in for pgflow.Client in pgflow.cli.main; answers start_flow from a script."""

    calls: ClassVar[list[tuple[str, Any]]] = []
    started: ClassVar[StartedRun | Exception] = run()

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def __enter__(self) -> FakeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def start_flow(self, flow, input, **options):
        FakeClient.calls.append(("start_flow", (flow, input, options)))
        if isinstance(FakeClient.started, Exception):
            raise FakeClient.started
        return FakeClient.started

    def list_runs(self, **kwargs):
        FakeClient.calls.append(("list_runs", kwargs["status"]))
        return []

    def get_run_slot(self, run_id):
        FakeClient.calls.append(("get_run_slot", run_id))
        return QUEUE_SLOT


@pytest.fixture
def fake_client(monkeypatch):
    FakeClient.calls = []
    FakeClient.started = run()
    monkeypatch.setattr(main_module, "Client", FakeClient)
    return FakeClient


def start(*args: str):
    return CliRunner().invoke(main, ["start", "billing", *args, "--dsn", "host=/nonexistent"])


def test_start_passes_the_keys_and_the_parsed_deadline(fake_client):
    result = start(
        "--idempotency-key", "order-42", "--concurrency-key", "account:7", "--deadline", "1h30m"
    )

    assert result.exit_code == 0, result.output
    assert result.stdout == f"{RUN_ID}\n"
    assert result.stderr == ""
    assert fake_client.calls == [
        (
            "start_flow",
            (
                "billing",
                {},
                {
                    "run_id": None,
                    "idempotency_key": "order-42",
                    "concurrency_key": "account:7",
                    "deadline": timedelta(hours=1, minutes=30),
                },
            ),
        )
    ]


def test_start_without_options_passes_none(fake_client):
    assert start().exit_code == 0
    ((_, (_, _, options)),) = fake_client.calls
    assert options == {
        "run_id": None,
        "idempotency_key": None,
        "concurrency_key": None,
        "deadline": None,
    }


def test_start_notes_a_duplicate_and_a_queued_run_on_stderr(fake_client):
    fake_client.started = run("queued", duplicate=True, concurrency_key="account:7")

    result = start("--idempotency-key", "k", "--concurrency-key", "account:7")

    assert result.exit_code == 0, result.output
    assert result.stdout == f"{RUN_ID}\n"  # the id stays alone on stdout, for scripts
    assert result.stderr.splitlines() == [
        f"already started: run {RUN_ID} (queued)",
        f"queued: position 2 for key account:7, slot held by run {HOLDER}",
    ]
    assert ("get_run_slot", RUN_ID) in fake_client.calls


def test_start_refused_over_the_limit_names_the_holders(fake_client):
    message = f"start_flow: concurrency limit ... is reached (1 of 1): held by run {HOLDER}"
    fake_client.started = ConcurrencyLimitReached(message, holders=[HOLDER])

    result = start("--concurrency-key", "account:7")

    assert result.exit_code == 1
    assert f"held by run {HOLDER}" in result.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2 hours", "is not a duration"),
        ("0s", "is zero"),
        ("2026-05-01T12:00:00", "has no UTC offset"),
    ],
)
def test_start_refuses_a_bad_deadline_as_a_usage_error(fake_client, value, message):
    result = start("--deadline", value)

    assert result.exit_code == 2
    assert message in result.stderr
    assert fake_client.calls == []


def test_runs_accepts_the_new_statuses(fake_client):
    for status in ("queued", "expired"):
        result = CliRunner().invoke(main, ["runs", "--status", status, "--dsn", "x"])
        assert result.exit_code == 0, result.output
        assert ("list_runs", status) in fake_client.calls

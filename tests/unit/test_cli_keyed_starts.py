"""`pgflow start` keys and deadlines, and what `pgflow runs` and `rerun` show of queued runs,
without a database: what the commands pass to and show from the client (a fake). The
wording itself: tests/unit/test_cli_keyed_wording.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from pgflow.cli import control
from pgflow.cli import main as main_module
from pgflow.cli.formatting import when
from pgflow.cli.main import main
from pgflow.client import RunControlResult, RunEvent, RunSlot, StartedRun
from pgflow.errors import ConcurrencyLimitReached

RUN_ID = "7f3e4c1a-0000-4000-8000-000000000001"
HOLDER = "0e1d2c3b-0000-4000-8000-000000000002"
OTHER = "0e1d2c3b-0000-4000-8000-000000000003"
AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


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
        return FakeClient.listed

    listed: ClassVar[list[Any]] = []
    events_of: ClassVar[dict[str, list[RunEvent]]] = {}

    def get_run_slot(self, run_id):
        FakeClient.calls.append(("get_run_slot", run_id))
        return QUEUE_SLOT

    def wait_for_run(self, run_id, timeout_seconds):
        FakeClient.calls.append(("wait_for_run", run_id))
        return run("completed", output={"only": 1}, completed_at=AT + timedelta(seconds=2))

    def rerun(self, run_id, **kwargs):
        FakeClient.calls.append(("rerun", str(run_id)))
        assert isinstance(FakeClient.started, StartedRun)
        return RunControlResult(FakeClient.started.run_id, FakeClient.started.status, True, None)

    def events(self, run_id):
        FakeClient.calls.append(("events", run_id))
        return FakeClient.events_of.get(run_id, [])


@pytest.fixture
def fake_client(monkeypatch):
    FakeClient.calls = []
    FakeClient.started = run()
    FakeClient.listed = []
    FakeClient.events_of = {}
    monkeypatch.setattr(main_module, "Client", FakeClient)
    monkeypatch.setattr(control, "Client", FakeClient)
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
        ("9999999999d", "is too long"),
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


@pytest.mark.parametrize("status", ["queued", "started"])
def test_start_wait_says_whether_the_run_was_queued_or_started(fake_client, status):
    fake_client.started = run(status, concurrency_key="account:7")

    result = start("--concurrency-key", "account:7", "--wait")

    assert result.exit_code == 0, result.output
    said = {
        "queued": f"queued run {RUN_ID} of flow billing ({QUEUED_NOTE})",
        "started": f"started run {RUN_ID} of flow billing",
    }[status]
    # one line on the start (no separate "queued:" note), one on the end
    assert result.stderr.splitlines() == [said, f"run {RUN_ID} completed in 2.0 s"]
    assert (("get_run_slot", RUN_ID) in fake_client.calls) == (status == "queued")


@pytest.mark.parametrize("status", ["queued", "started"])
def test_rerun_says_whether_the_new_run_was_queued_or_started(fake_client, status):
    fake_client.started = run(status)

    result = CliRunner().invoke(main, ["rerun", OTHER, "--dsn", "x"])

    assert result.exit_code == 0, result.output
    assert result.stdout == f"{RUN_ID}\n"
    if status == "queued":
        assert result.stderr == f"queued run {RUN_ID} (rerun of {OTHER}; {QUEUED_NOTE})\n"
    else:
        assert result.stderr == f"started run {RUN_ID} (rerun of {OTHER})\n"
        assert ("get_run_slot", RUN_ID) not in fake_client.calls


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "--idempotency-key",
            " ",
            "must not be blank (got ' '): omit --idempotency-key for no key",
        ),
        ("--concurrency-key", "", "must not be blank (got ''): omit --concurrency-key for no key"),
        ("--concurrency-key", "k" * 256, "must be at most 255 characters (got 256)"),
    ],
)
def test_a_bad_key_is_a_usage_error_in_command_line_words(fake_client, option, value, message):
    result = start(option, value)

    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert "None" not in result.stderr  # a Python word, not the command line's
    assert fake_client.calls == []


def test_runs_shows_queued_and_never_started_runs_apart(fake_client):
    gone, gone_events = ended_queued()
    left = ended_queued(run_id=OTHER, started_at=AT + timedelta(seconds=1))[0]
    waiting = run("queued", run_id=HOLDER, queued_at=AT)
    fake_client.listed = [gone, left, waiting]
    fake_client.events_of = {RUN_ID: gone_events}

    result = CliRunner().invoke(main, ["runs", "--dsn", "x"])

    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[2:] for line in result.stdout.splitlines()[1:]}
    assert rows[RUN_ID] == ["expired", "never", "-", "1"]
    assert rows[HOLDER] == ["queued", "queued", "-", "1"]
    assert rows[OTHER][:2] == ["expired", when(AT + timedelta(seconds=1)).split()[0]]
    # events are read only for a run that may have ended in the queue
    assert [call for call in fake_client.calls if call[0] == "events"] == [("events", RUN_ID)]

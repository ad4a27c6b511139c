"""The run-control commands without a database: usage errors, what each passes to the
client (a fake), the bulk counting, and the status and events formatting."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import ClassVar

import pytest
from click.testing import CliRunner

from pgflow.cli import bulk, control, formatting
from pgflow.cli.main import main
from pgflow.client import RetryingTask, Run, RunControlResult, RunEvent, RunState, StepState
from pgflow.errors import RunNotFound, RunStateError

RUN_ID = "7f3e4c1a-0000-4000-8000-000000000001"
AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def invoke(*args):
    return CliRunner().invoke(main, [*args, "--dsn", "host=/nonexistent"])


class FakeClient:
    """Stands in for pgflow.Client in pgflow.cli.control; records the calls."""

    calls: ClassVar[list[tuple]] = []
    runs: ClassVar[list[str]] = []

    def __init__(self, dsn):
        self.dsn = dsn

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def _verb(self, name, *args, **kwargs):
        FakeClient.calls.append((name, args, kwargs))
        return RunControlResult(str(args[0]), "done", True, None)

    def cancel_run(self, *args, **kwargs):
        return self._verb("cancel_run", *args, **kwargs)

    def retry_run(self, *args, **kwargs):
        return self._verb("retry_run", *args, **kwargs)

    def complete_step(self, *args, **kwargs):
        return self._verb("complete_step", *args, **kwargs)

    def list_runs(self, **kwargs):
        FakeClient.calls.append(("list_runs", (), kwargs))
        return [Run(r, "f", "failed", None, None, 1, AT, None, AT) for r in FakeClient.runs]


@pytest.fixture
def fake_client(monkeypatch):
    FakeClient.calls = []
    FakeClient.runs = []
    monkeypatch.setattr(control, "Client", FakeClient)
    monkeypatch.setattr(control.getpass, "getuser", lambda: "tester")
    return FakeClient


# ---------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["retry", RUN_ID, "--flow", "f"], "give RUN_ID or --flow, not both"),
        (["cancel"], "give RUN_ID, or --flow to act on many runs"),
        (["pause", RUN_ID, "--step", "s"], "--step select runs with --flow, not RUN_ID"),
        (["retry", RUN_ID, "--limit", "3", "--dry-run"], "--limit, --dry-run select runs"),
        (["retry", "--flow", "f", "--expected-status", "failed"], "--expected-status is for one"),
        (["retry", "--flow", "f", "--status", "started"], "'started' is not 'failed'"),
        (["cancel", "not-a-uuid"], "is not a valid UUID"),
        (["complete-step", RUN_ID, "s"], "Missing option '--output'"),
        (["complete-step", RUN_ID, "s", "--output", "{oops"], "--output is not JSON"),
        (["complete-step", RUN_ID, "s", "--output", "NaN"], "NaN is not a JSON value"),
        (["complete-step", RUN_ID, "s", "--output", "@/nonexistent.json"], "cannot read"),
        (["skip", RUN_ID], "Missing argument 'STEP'"),
        (["events"], "Missing argument 'RUN_ID'"),
        (["pause", RUN_ID, "--expected-status", "done"], "'done' is not one of"),
    ],
)
def test_usage_errors_exit_2_before_connecting(fake_client, args, message):
    result = invoke(*args)

    assert result.exit_code == 2, result.output
    assert message in result.output
    assert fake_client.calls == []


# ---------------------------------------------------------------- what is passed on


def test_one_run_passes_actor_reason_and_expected_status(fake_client):
    result = invoke("cancel", RUN_ID, "--reason", "stop it", "--expected-status", "paused")

    assert result.exit_code == 0, result.output
    assert fake_client.calls == [
        (
            "cancel_run",
            (uuid.UUID(RUN_ID),),
            {"actor": "cli:tester", "reason": "stop it", "expected_status": "paused"},
        )
    ]
    assert result.stdout == f"cancelled run {RUN_ID}: now done\n"


def test_complete_step_passes_the_parsed_output(fake_client):
    invoke("complete-step", RUN_ID, "load", "--output", '[1, {"a": null}]', "--actor", "bob")

    ((name, args, kwargs),) = fake_client.calls
    assert (name, args) == ("complete_step", (uuid.UUID(RUN_ID), "load", [1, {"a": None}]))
    assert kwargs == {"actor": "bob", "reason": None, "expected_status": None}


def test_bulk_selects_then_guards_each_call_with_the_selected_status(fake_client):
    fake_client.runs = ["r1", "r2"]

    result = invoke(
        "retry", "--flow", "f", "--step", "s", "--error-contains", "disk", "--reason", "why"
    )

    assert result.exit_code == 0, result.output
    assert fake_client.calls == [
        (
            "list_runs",
            (),
            {
                "flow_slug": "f",
                "status": "failed",
                "limit": 500,
                "step_slug": "s",
                "error_contains": "disk",
            },
        ),
        (
            "retry_run",
            ("r1",),
            {"actor": "cli:tester", "reason": "why", "expected_status": "failed"},
        ),
        (
            "retry_run",
            ("r2",),
            {"actor": "cli:tester", "reason": "why", "expected_status": "failed"},
        ),
    ]
    assert result.stdout == "retry_run: 2 moved, 0 had already moved on, 0 refused (2 selected)\n"


def test_bulk_dry_run_only_lists(fake_client):
    fake_client.runs = ["r1"]

    result = invoke("cancel", "--flow", "f", "--status", "paused", "--limit", "9", "--dry-run")

    assert result.stdout == "r1\n"
    assert [call[0] for call in fake_client.calls] == ["list_runs"]
    assert fake_client.calls[0][2]["status"] == "paused"
    assert fake_client.calls[0][2]["limit"] == 9


@pytest.mark.parametrize("error", [OSError("no tty"), KeyError("uid 1234")])
def test_default_actor_without_a_known_os_user(monkeypatch, error):
    def getuser():
        raise error

    monkeypatch.setattr(control.getpass, "getuser", getuser)

    assert control.default_actor() == "cli:unknown"


# ---------------------------------------------------------------- bulk counting


def test_act_on_runs_counts_each_outcome():
    def verb(run_id, expected):
        assert expected == "failed"
        if run_id == "refused":
            raise RunStateError("retry_run: run x is cancelled", status="cancelled")
        if run_id == "gone":
            raise RunNotFound("retry_run: run x does not exist")
        return RunControlResult(run_id, "started", run_id == "moved", "run is started")

    notes = []
    report = bulk.act_on_runs(["moved", "late", "refused", "gone"], "failed", verb, notes.append)

    assert (report.selected, report.moved, report.moved_on, report.refused) == (4, 1, 2, 1)
    assert report.summary("retry_run") == (
        "retry_run: 1 moved, 2 had already moved on, 1 refused (4 selected)"
    )
    assert notes[0] == "moved: moved (now started)"
    assert notes[2].startswith("refused: refused (retry_run: run x is cancelled)")


def test_act_on_runs_lets_other_errors_through_with_the_counts_so_far():
    report = bulk.BulkReport()

    def verb(run_id, expected):
        if run_id == "second":
            raise PermissionError("denied")
        return RunControlResult(run_id, "started", True, None)

    with pytest.raises(PermissionError):
        bulk.act_on_runs(["first", "second", "third"], "failed", verb, lambda _: None, report)

    assert (report.selected, report.moved) == (3, 1)


# ---------------------------------------------------------------- formatting


def state(status, steps=()):
    return RunState(RUN_ID, "f", status, None, None, 1, AT, None, None, steps=tuple(steps))


def step(slug, status, error=None):
    return StepState(slug, status, 1, 1, 0, None, error, None, AT, AT, None, None, None)


def event(name, actor="ops", reason=None, at=AT):
    return RunEvent(1, RUN_ID, None, None, name, actor, reason, None, at)


def test_why_lines_name_the_failed_step_or_who_acted():
    failed = state("failed", [step("a", "completed"), step("b", "failed", "Boom:\n  line 2")])
    cancelled_events = [
        event("run:cancelled", "alice", "old", AT),
        event("run:cancelled", "bob", "wrong input", AT + timedelta(seconds=1)),
    ]

    assert formatting.why_lines(failed, []) == [("failed", "at step b: Boom: line 2")]
    assert formatting.why_lines(state("cancelled"), cancelled_events) == [
        ("cancelled", f"by bob at {formatting.when(AT + timedelta(seconds=1))}: wrong input")
    ]
    assert formatting.why_lines(state("paused"), []) == []
    assert formatting.why_lines(state("started"), cancelled_events) == []


def test_next_attempt_reads_as_time_left_or_waiting():
    task = RetryingTask("a", 0, 1, "boom", AT, AT + timedelta(seconds=30))

    assert formatting.next_attempt(task, "started", now=AT).startswith("in 30.0 s (")
    assert formatting.next_attempt(task, "started", now=AT + timedelta(minutes=2)) == (
        "due (since 1 min 30 s)"
    )
    assert formatting.next_attempt(task, "paused", now=AT) == "after resume"
    no_time = RetryingTask("a", 0, 1, "boom", None, None)
    assert formatting.next_attempt(no_time, "started", now=AT) == "-"


def test_retrying_and_events_tables():
    tasks = [RetryingTask("load", 3, 2, "Timeout\nafter 30 s", AT, AT + timedelta(seconds=8))]
    events = [
        RunEvent(1, RUN_ID, "load", 3, "task:failed", "worker:w", None, {"retry": True}, AT),
        RunEvent(2, RUN_ID, None, None, "run:paused", "ops", "deploy", None, AT),
    ]

    retrying = formatting.retrying_table(tasks, "started", now=AT).splitlines()
    table = formatting.events_table(events).splitlines()

    assert retrying[0].split() == [
        "RETRYING",
        "STEP",
        "TASK",
        "ATTEMPTS",
        "NEXT",
        "ATTEMPT",
        "LAST",
        "ERROR",
    ]
    assert retrying[1].split()[:4] == ["load", "3", "2", "in"]
    assert retrying[1].endswith("Timeout after 30 s")
    assert table[1].split()[2:] == ["task:failed", "load", "3", "worker:w", '{"retry":', "true}"]
    assert table[2].split()[2:] == ["run:paused", "ops", "deploy"]

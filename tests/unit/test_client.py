"""pgflow.client records and polling, without a database."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest

from pgflow.client import (
    Client,
    Run,
    RunState,
    StepState,
    canonical_run_id,
    encode_run_input,
)
from pgflow.errors import InvalidRunId, InvalidRunInput, RunTimeout

RUN_ROW = {
    "run_id": "7f3e4c1a-0000-4000-8000-000000000001",
    "flow_slug": "analyze",
    "status": "completed",
    "input": {"n": 1},
    "output": {"report": {"ok": True}},
    "remaining_steps": 0,
    "started_at": "2025-01-02T03:04:05.5+00:00",
    "completed_at": "2025-01-02T03:04:07+00:00",
    "failed_at": None,
}


def step_row(slug, status, initial=None, remaining=None, **extra):
    return {
        "flow_slug": "analyze",
        "run_id": RUN_ROW["run_id"],
        "step_slug": slug,
        "status": status,
        "initial_tasks": initial,
        "remaining_tasks": remaining,
        "remaining_deps": 0,
        "created_at": "2025-01-02T03:04:05.5+00:00",
        **extra,
    }


def test_run_state_parses_get_run_with_states_json():
    state = RunState.from_json(
        {"run": RUN_ROW, "steps": [step_row("a", "completed", 1, 0, output=[1])]}
    )

    assert state.run_id == RUN_ROW["run_id"]
    assert state.finished
    assert state.output == {"report": {"ok": True}}
    assert state.started_at == datetime(2025, 1, 2, 3, 4, 5, 500000, tzinfo=UTC)
    assert state.duration_seconds == pytest.approx(1.5)
    assert state.step("a").output == [1]
    assert isinstance(state, Run)


def test_run_state_without_steps_has_an_empty_tuple():
    state = RunState.from_json({"run": RUN_ROW, "steps": []})

    assert state.steps == ()
    assert state.failed_step is None


def test_unknown_step_is_a_key_error():
    state = RunState.from_json({"run": RUN_ROW, "steps": []})

    with pytest.raises(KeyError, match="nope"):
        state.step("nope")


@pytest.mark.parametrize(
    ("status", "initial", "remaining", "done"),
    [
        ("created", None, None, 0),  # dependent map before its parent finished
        ("created", 4, None, 0),
        ("started", 4, 3, 1),
        ("completed", 4, 0, 4),
        ("completed", 0, 0, 0),  # empty map
    ],
)
def test_completed_tasks_counts_what_is_known(status, initial, remaining, done):
    step = StepState.from_row(step_row("m", status, initial, remaining))

    assert step.completed_tasks == done


def test_failed_step_is_the_first_failed_one():
    state = RunState.from_json(
        {
            "run": {**RUN_ROW, "status": "failed", "completed_at": None},
            "steps": [
                step_row("a", "completed", 1, 0),
                step_row("b", "failed", 1, 1, error_message="boom"),
            ],
        }
    )

    assert state.failed_step is not None
    assert state.failed_step.error_message == "boom"
    assert state.duration_seconds is None


def test_wait_for_run_times_out_with_run_timeout(monkeypatch):
    client = Client("dbname=never_connected")
    started = RunState.from_json({"run": {**RUN_ROW, "status": "started"}, "steps": []})
    calls = []
    monkeypatch.setattr(client, "get_run", lambda run_id: calls.append(run_id) or started)

    with pytest.raises(RunTimeout, match="still started"):
        client.wait_for_run("r1", timeout_seconds=0.05, poll_interval_seconds=0.01)
    assert len(calls) >= 2


def test_wait_for_run_returns_the_final_state(monkeypatch):
    client = Client("dbname=never_connected")
    states = iter(
        [
            RunState.from_json({"run": {**RUN_ROW, "status": "started"}, "steps": []}),
            RunState.from_json({"run": RUN_ROW, "steps": []}),
        ]
    )
    monkeypatch.setattr(client, "get_run", lambda run_id: next(states))

    final = client.wait_for_run("r1", timeout_seconds=5, poll_interval_seconds=0.001)

    assert final.status == "completed"


# ---------------------------------------------------------------- bad input, before any SQL


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({1}, "(set): Object of type set is not JSON serializable"),
        ([float("nan")], "(list): Out of range float values are not JSON compliant"),
        ({"at": datetime(2025, 1, 1, tzinfo=UTC)}, "(dict): Object of type datetime is not"),
    ],
)
def test_start_flow_rejects_an_input_that_is_not_json_without_connecting(value, problem):
    client = Client("host=127.0.0.1 port=1 dbname=never_connected")
    with pytest.raises(InvalidRunInput, match=re.escape(f"not JSON-serialisable {problem}")):
        client.start_flow("analyze", value)
    assert isinstance(InvalidRunInput("x"), ValueError)


@pytest.mark.parametrize("run_id", ["", "   ", "not-a-uuid", "urn:x", 42])
def test_start_flow_rejects_a_run_id_that_is_not_a_uuid_without_connecting(run_id):
    client = Client("host=127.0.0.1 port=1 dbname=never_connected")
    with pytest.raises(InvalidRunId, match=re.escape(f"run_id {run_id!r} is not a uuid")):
        client.start_flow("analyze", {}, run_id=run_id)


def test_run_input_and_run_id_encoding():
    assert encode_run_input({"a": [0, False, "", None]}) == '{"a": [0, false, "", null]}'
    assert encode_run_input(None) == "null"
    run_id = uuid.UUID("7f3e4c1a-0000-4000-8000-000000000001")
    assert canonical_run_id(run_id) == str(run_id)
    assert canonical_run_id("{7F3E4C1A-0000-4000-8000-000000000001}") == str(run_id)
    assert canonical_run_id("7f3e4c1a000040008000000000000001") == str(run_id)

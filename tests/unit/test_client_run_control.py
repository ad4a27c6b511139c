"""The run-control plans and records of pgflow.client, without a database: argument checks,
statements and parameters, error translation, parsing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import psycopg
import pytest

from pgflow import Client
from pgflow.client import (
    RetryingTask,
    Run,
    RunControlResult,
    RunEvent,
    RunState,
    control_plans,
    queries,
)
from pgflow.client.plans import first_statement
from pgflow.errors import (
    InvalidControlArgument,
    InvalidRunId,
    PermissionDenied,
    RunNotFound,
    RunStateError,
    StepNotFound,
)

RUN_ID = "7f3e4c1a-0000-4000-8000-000000000001"


def finish(plan, rows):
    """Send rows to a plan at its statement and return its result."""
    with pytest.raises(StopIteration) as stop:
        plan.send(rows)
    return stop.value.value


def throw(plan, error):
    """Throw a database error into a plan at its statement; return what it raises."""
    with pytest.raises(Exception) as raised:
        plan.throw(error)
    return raised.value


# ---------------------------------------------------------------- statements and parameters


@pytest.mark.parametrize(
    ("verb", "statement"),
    [
        ("cancel_run", queries.CANCEL_RUN),
        ("pause_run", queries.PAUSE_RUN),
        ("resume_run", queries.RESUME_RUN),
        ("retry_run", queries.RETRY_RUN),
        ("rerun_flow", queries.RERUN_FLOW),
    ],
)
def test_run_verbs_send_their_function_with_canonical_arguments(verb, statement):
    plan = control_plans.run_verb(
        verb, uuid.UUID(RUN_ID), actor="alice", reason="why", expected_status="started"
    )

    sent, params = first_statement(plan)

    assert sent is statement
    assert f"pgflow.{verb}(" in sent
    assert params == {
        "run_id": RUN_ID,
        "actor": "alice",
        "reason": "why",
        "expected_status": "started",
    }
    result = finish(plan, [(uuid.UUID(RUN_ID), "cancelled", True, None)])
    assert result == RunControlResult(RUN_ID, "cancelled", True, None)


def test_step_verbs_send_the_step_and_the_output_as_json_text():
    skip = control_plans.skip_step(RUN_ID.upper(), "load", actor="bob")
    complete = control_plans.complete_step(RUN_ID, "load", {"rows": [1, None]}, actor="bob")

    skip_sql, skip_params = first_statement(skip)
    complete_sql, complete_params = first_statement(complete)

    assert skip_sql is queries.SKIP_STEP
    assert skip_params == {
        "run_id": RUN_ID,
        "step_slug": "load",
        "actor": "bob",
        "reason": None,
        "expected_status": None,
    }
    assert complete_sql is queries.COMPLETE_STEP
    assert complete_params["output"] == '{"rows": [1, null]}'


def test_events_and_retrying_tasks_parse_their_rows():
    at = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    events = control_plans.events(RUN_ID)
    retrying = control_plans.retrying_tasks(RUN_ID)

    assert first_statement(events) == (queries.GET_RUN_EVENTS, {"run_id": RUN_ID})
    assert first_statement(retrying) == (queries.RETRYING_TASKS, {"run_id": RUN_ID})
    row = (7, uuid.UUID(RUN_ID), "load", 0, "task:failed", "worker:x", None, {"retry": True}, at)
    assert finish(events, [row]) == [
        RunEvent(7, RUN_ID, "load", 0, "task:failed", "worker:x", None, {"retry": True}, at)
    ]
    assert finish(retrying, [("load", 2, 1, "boom", at, None)]) == [
        RetryingTask("load", 2, 1, "boom", at, None)
    ]


# ---------------------------------------------------------------- argument checks


@pytest.mark.parametrize("actor", ["", "   ", "\t\n", None, 42])
def test_a_blank_actor_fails_before_any_statement(actor):
    with pytest.raises(InvalidControlArgument, match="actor must name who acts"):
        first_statement(control_plans.run_verb("cancel_run", RUN_ID, actor=actor))


@pytest.mark.parametrize("status", ["done", "STARTED", "", "created"])
def test_an_unknown_expected_status_fails_before_any_statement(status):
    with pytest.raises(InvalidControlArgument, match="is not a run status"):
        first_statement(control_plans.skip_step(RUN_ID, "s", actor="a", expected_status=status))


def test_a_run_id_that_is_not_a_uuid_and_an_output_that_is_not_json():
    with pytest.raises(InvalidRunId):
        first_statement(control_plans.run_verb("retry_run", "nope", actor="a"))
    with pytest.raises(InvalidRunId):
        first_statement(control_plans.events(""))
    with pytest.raises(InvalidControlArgument, match="not JSON-serialisable"):
        first_statement(control_plans.complete_step(RUN_ID, "s", {1, 2}, actor="a"))
    with pytest.raises(InvalidControlArgument, match="not JSON-serialisable"):
        first_statement(control_plans.complete_step(RUN_ID, "s", float("nan"), actor="a"))


def test_an_unknown_verb_is_a_programming_error():
    with pytest.raises(ValueError, match="not a run verb"):
        first_statement(control_plans.run_verb("skip_step", RUN_ID, actor="a"))


def test_client_checks_arguments_without_connecting():
    client = Client("host=/nonexistent dbname=never")

    with pytest.raises(InvalidControlArgument):
        client.cancel_run(RUN_ID, actor="")
    with pytest.raises(InvalidRunId):
        client.rerun("x", actor="a")


def test_actor_is_required_and_keyword_only():
    client = Client("host=/nonexistent dbname=never")

    with pytest.raises(TypeError):
        client.cancel_run(RUN_ID)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        client.cancel_run(RUN_ID, "alice")  # type: ignore[misc]


# ---------------------------------------------------------------- error translation


def test_55000_becomes_run_state_error_with_the_run_status():
    plan = control_plans.run_verb("retry_run", RUN_ID, actor="a")
    first_statement(plan)

    error = throw(
        plan,
        psycopg.errors.ObjectNotInPrerequisiteState(f"retry_run: run {RUN_ID} is started"),
    )

    assert isinstance(error, RunStateError)
    assert (error.verb, error.run_id, error.status, error.step_slug) == (
        "retry_run",
        RUN_ID,
        "started",
        None,
    )


def test_55000_of_a_step_names_the_step_and_both_statuses():
    message = f"skip_step: step 'load' of run {RUN_ID} is completed (the run is started)"

    error = control_plans.state_error(message)

    assert (error.verb, error.run_id, error.status, error.step_slug, error.step_status) == (
        "skip_step",
        RUN_ID,
        "started",
        "load",
        "completed",
    )
    assert str(error) == message


def test_55000_of_a_run_past_its_deadline_names_the_run_and_the_verb():
    plan = control_plans.run_verb("retry_run", RUN_ID, actor="a")
    first_statement(plan)
    message = (
        f"a failed run cannot start again: the deadline of run {RUN_ID} passed at "
        "2026-12-02 04:00:00+00"
    )

    error = throw(plan, psycopg.errors.ObjectNotInPrerequisiteState(message))

    assert isinstance(error, RunStateError)
    assert (error.verb, error.run_id, error.status) == ("retry_run", RUN_ID, "failed")
    assert str(error) == message


def test_an_unparsed_55000_message_is_kept_whole():
    error = control_plans.state_error("something else entirely")

    assert str(error) == "something else entirely"
    assert error.status is None


@pytest.mark.parametrize(
    ("db_error", "expected"),
    [
        (psycopg.errors.NoDataFound(f"cancel_run: run {RUN_ID} does not exist"), RunNotFound),
        (psycopg.errors.NoDataFound(f"skip_step: run {RUN_ID} has no step 'x'"), StepNotFound),
        (psycopg.errors.InvalidParameterValue("actor must name who acts"), InvalidControlArgument),
        (
            psycopg.errors.ProgramLimitExceeded("Output of step s is too large"),
            InvalidControlArgument,
        ),
        (
            psycopg.errors.InsufficientPrivilege("permission denied for function x"),
            PermissionDenied,
        ),
    ],
)
def test_database_errors_become_pgflow_errors(db_error, expected):
    plan = control_plans.skip_step(RUN_ID, "x", actor="a")
    first_statement(plan)

    error = throw(plan, db_error)

    assert type(error) is expected
    assert error.__cause__ is db_error


def test_permission_denied_names_the_role_to_grant():
    error = control_plans.translate(
        "pause_run",
        psycopg.errors.InsufficientPrivilege("permission denied for function pause_run"),
    )

    assert isinstance(error, PermissionError)
    assert "pause_run needs the pgflow_operator role" in str(error)


def test_other_database_errors_pass_through_unchanged():
    plan = control_plans.run_verb("cancel_run", RUN_ID, actor="a")
    first_statement(plan)
    db_error = psycopg.errors.SerializationFailure("could not serialize")

    assert throw(plan, db_error) is db_error


# ---------------------------------------------------------------- records


def test_run_reads_the_run_control_columns():
    run = Run.from_row(
        {
            "run_id": RUN_ID,
            "flow_slug": "f",
            "status": "cancelled",
            "remaining_steps": 1,
            "started_at": "2025-01-02T03:04:05+00:00",
            "cancelled_at": "2025-01-02T03:04:15+00:00",
            "rerun_of": uuid.UUID(int=1),
        }
    )

    assert run.finished
    assert run.duration_seconds == 10
    assert run.rerun_of == str(uuid.UUID(int=1))
    assert run.paused_at is None


def test_a_paused_run_is_not_finished_and_old_rows_still_parse():
    state = RunState.from_json(
        {
            "run": {
                "run_id": RUN_ID,
                "flow_slug": "f",
                "status": "paused",
                "paused_at": "2025-01-02T03:04:05+00:00",
            },
            "steps": [{"step_slug": "a", "status": "cancelled", "cancelled_at": None}],
        }
    )

    assert not state.finished
    assert state.paused_at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert state.step("a").cancelled_at is None

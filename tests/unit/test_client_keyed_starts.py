"""Keyed starts in pgflow.client, without a database: argument checks before any connection,
the statements a keyed start sends and the translation of its SQL errors. Slots, deadlines
and the new run fields: tests/unit/test_client_run_slots.py."""

from __future__ import annotations

import math
import re
import uuid
from datetime import UTC, datetime, timedelta, timezone

import psycopg
import pytest

from pgflow import (
    Client,
    ConcurrencyLimitReached,
    InvalidRunInput,
    InvalidStartOption,
    RunNotFound,
    WrongIsolationLevel,
)
from pgflow.client import (
    RunState,
    StartedRun,
    control_plans,
    plans,
    queries,
)
from pgflow.client.plans import first_statement
from pgflow.client.start_options import check_run_key, deadline_params, limit_reached

RUN_ID = "7f3e4c1a-0000-4000-8000-000000000001"
HOLDER = "0e1d2c3b-0000-4000-8000-000000000002"
OTHER = "0e1d2c3b-0000-4000-8000-000000000003"
AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
NEVER = "host=127.0.0.1 port=1 dbname=never_connected"

RUN_ROW = {
    "run_id": RUN_ID,
    "flow_slug": "billing",
    "status": "started",
    "input": {},
    "output": None,
    "remaining_steps": 1,
    "started_at": "2025-01-02T03:04:05+00:00",
}


def finish(plan, rows):
    """Send rows to a plan at its last statement and return its result."""
    with pytest.raises(StopIteration) as stop:
        plan.send(rows)
    return stop.value.value


def throw(plan, error):
    """Throw a database error into a plan at its statement; return what it raises."""
    with pytest.raises(Exception) as raised:
        plan.throw(error)
    return raised.value


# ---------------------------------------------------------------- checks before connecting


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("", "must not be blank"),
        ("   ", "must not be blank"),
        ("\t\n", "must not be blank"),
        (" \t\n\r\f\v", "must not be blank"),  # the ASCII whitespace SQL calls blank
        ("order\x0042", "cannot hold a NUL character"),
        ("\x00", "cannot hold a NUL character"),
        ("x" * 256, "must be at most 255 characters (got 256)"),
        (42, "must be a string, got int"),
    ],
)
@pytest.mark.parametrize("option", ["idempotency_key", "concurrency_key"])
def test_a_bad_key_fails_before_connecting(option, key, message):
    client = Client(NEVER)
    with pytest.raises(InvalidStartOption, match=re.escape(f"{option} {message}")):
        client.start_flow("billing", {}, **{option: key})
    assert isinstance(InvalidStartOption("x"), ValueError)


def test_keys_of_255_characters_and_none_pass():
    assert check_run_key("idempotency_key", "k" * 255) == "k" * 255
    assert check_run_key("idempotency_key", " order-42 ") == " order-42 "  # kept as given
    assert check_run_key("concurrency_key", None) is None


@pytest.mark.parametrize("key", ["\u00a0", " \u00a0 ", "\u2003", "\u3000\t"])
def test_keys_of_non_ascii_spaces_pass_as_in_sql(key):
    # SQL's _check_run_key calls only ASCII whitespace blank; str.strip() would strip these too
    assert check_run_key("idempotency_key", key) == key
    assert check_run_key("concurrency_key", key) == key


def test_a_key_with_nul_is_refused_by_check_run_key():
    with pytest.raises(InvalidStartOption, match="concurrency_key cannot hold a NUL character"):
        check_run_key("concurrency_key", "a\x00")


def test_deadlines_become_an_absolute_time_or_an_interval_from_the_database_now():
    moment = datetime(2030, 1, 1, tzinfo=timezone(timedelta(hours=2)))
    assert deadline_params(None) == {"deadline_at": None, "deadline_in": None}
    assert deadline_params(moment) == {"deadline_at": moment, "deadline_in": None}
    assert deadline_params(timedelta(hours=2)) == {
        "deadline_at": None,
        "deadline_in": timedelta(hours=2),
    }
    assert deadline_params(90) == {"deadline_at": None, "deadline_in": timedelta(seconds=90)}
    assert deadline_params(0.5)["deadline_in"] == timedelta(milliseconds=500)


@pytest.mark.parametrize(
    ("deadline", "message"),
    [
        (datetime(2030, 1, 1), "has no time zone"),  # naive
        (timedelta(0), "must be in the future"),
        (timedelta(seconds=-5), "must be in the future"),
        (0, "must be in the future"),
        (-1.5, "must be in the future"),
        (math.nan, "finite number of seconds"),
        (math.inf, "finite number of seconds"),
        (1e300, "too far away"),
        (True, "got bool"),
        ("2h", "got str"),
    ],
)
def test_a_bad_deadline_fails_before_connecting(deadline, message):
    client = Client(NEVER)
    with pytest.raises(InvalidStartOption, match=re.escape(message)):
        client.start_flow("billing", {}, deadline=deadline)


# ---------------------------------------------------------------- statements


def test_an_unkeyed_start_sends_one_statement_as_before():
    plan = plans.start_flow("billing", {"n": 1})

    sent, params = first_statement(plan)

    assert sent is queries.START_FLOW
    assert params == {"flow_slug": "billing", "input": '{"n": 1}', "run_id": None}
    state = finish(plan, [({"run": RUN_ROW, "steps": []},)])
    assert isinstance(state, StartedRun) and isinstance(state, RunState)
    assert state.duplicate is False


def test_a_keyed_start_calls_start_flow_then_reads_the_state_in_a_second_statement():
    plan = plans.start_flow(
        "billing",
        {},
        uuid.UUID(RUN_ID),
        idempotency_key="order-42",
        concurrency_key="account:7",
        deadline=timedelta(hours=2),
    )

    sent, params = first_statement(plan)

    assert sent is queries.START_FLOW_KEYED
    assert "pgflow.start_flow(" in sent and "idempotency_key =>" in sent
    assert "now() + %(deadline_in)s::interval" in sent  # the database clock decides
    assert params == {
        "flow_slug": "billing",
        "input": "{}",
        "run_id": RUN_ID,
        "idempotency_key": "order-42",
        "concurrency_key": "account:7",
        "deadline_at": None,
        "deadline_in": timedelta(hours=2),
    }
    second, second_params = plan.send([(uuid.UUID(RUN_ID), True)])
    assert second is queries.GET_RUN
    assert second_params == {"run_id": RUN_ID}
    row = {**RUN_ROW, "idempotency_key": "order-42", "concurrency_key": "account:7"}
    state = finish(plan, [({"run": row, "steps": []},)])
    assert state.duplicate is True
    assert (state.idempotency_key, state.concurrency_key) == ("order-42", "account:7")


def test_a_deadline_alone_takes_the_keyed_statement():
    sent, params = first_statement(plans.start_flow("billing", {}, deadline=AT))
    assert sent is queries.START_FLOW_KEYED
    assert (params["deadline_at"], params["deadline_in"]) == (AT, None)


def test_a_run_gone_before_the_second_statement_is_run_not_found():
    plan = plans.start_flow("billing", {}, idempotency_key="k")
    first_statement(plan)
    plan.send([(uuid.UUID(RUN_ID), False)])
    with pytest.raises(RunNotFound, match="gone already"):
        plan.send([(None,)])


# ---------------------------------------------------------------- errors


LIMIT_MESSAGE = (
    f"start_flow: concurrency limit of flow 'billing' for key 'account:7' is reached (2 of 2):"
    f" held by run {HOLDER}, {OTHER}"
)


def keyed_plan():
    plan = plans.start_flow("billing", {}, concurrency_key="account:7")
    first_statement(plan)
    return plan


def test_limit_reached_names_the_key_the_flow_and_the_holders():
    error = throw(keyed_plan(), psycopg.errors.ConfigurationLimitExceeded(LIMIT_MESSAGE))

    assert isinstance(error, ConcurrencyLimitReached)
    assert str(error) == LIMIT_MESSAGE
    assert error.concurrency_key == "account:7"
    assert error.flow_slug == "billing"
    assert error.holders == [HOLDER, OTHER]
    assert isinstance(error.__cause__, psycopg.errors.ConfigurationLimitExceeded)


class FakeDiag:
    def __init__(self, primary, detail):
        self.message_primary = primary
        self.message_detail = detail


class FakeError:
    """A database error with a DETAIL (psycopg's own cannot be built with one)."""

    def __init__(self, primary, detail):
        self.diag = FakeDiag(primary, detail)


def test_limit_reached_prefers_the_holders_of_the_detail():
    detail = f"Runs holding the slots: {OTHER}. Runs queued for one: 3."
    message = "retry_run: concurrency limit of flow 'it''s' for key 'a''b' is reached (1 of 1)"

    error = limit_reached(FakeError(message, detail))  # type: ignore[arg-type]

    assert error.holders == [OTHER]
    assert (error.flow_slug, error.concurrency_key) == ("it's", "a'b")  # read from the message


@pytest.mark.parametrize(
    ("db_error", "expected"),
    [
        (
            psycopg.errors.InvalidParameterValue(
                "start_flow: deadline 2020-01-01 00:00:00+00 is not in the future (now is ...)"
            ),
            InvalidStartOption,
        ),
        (
            psycopg.errors.InvalidParameterValue("start_flow: idempotency_key must not be blank"),
            InvalidStartOption,
        ),
        (
            psycopg.errors.InvalidTransactionState(
                "start_flow: a run with a concurrency_key needs a READ COMMITTED transaction"
            ),
            WrongIsolationLevel,
        ),
        (
            psycopg.errors.InvalidParameterValue("Flow 'billing' has a root map: input array"),
            InvalidRunInput,
        ),
    ],
)
def test_refusals_of_a_keyed_start_become_pgflow_errors(db_error, expected):
    error = throw(keyed_plan(), db_error)
    assert isinstance(error, expected)
    assert str(error).startswith(str(db_error)[:20])


def test_a_deadline_the_database_cannot_add_becomes_invalid_start_option():
    # now() + a huge interval: the database raises datetime_field_overflow (22008)
    db_error = psycopg.errors.DatetimeFieldOverflow("timestamp out of range")

    error = throw(keyed_plan(), db_error)

    assert isinstance(error, InvalidStartOption)
    assert str(error) == "deadline is too far away: timestamp out of range"
    assert error.__cause__ is db_error


def test_other_errors_of_a_keyed_start_pass_through():
    db_error = psycopg.errors.InvalidParameterValue("pgflow.max_payload_bytes is not a number")
    assert throw(keyed_plan(), db_error) is db_error


def test_retry_run_over_the_limit_raises_concurrency_limit_reached():
    plan = control_plans.run_verb("retry_run", RUN_ID, actor="ops")
    first_statement(plan)
    message = (
        "a failed run cannot start again: concurrency limit of flow 'billing' for key"
        f" 'account:7' is reached (1 of 1): held by run {HOLDER}"
    )

    error = throw(plan, psycopg.errors.ConfigurationLimitExceeded(message))

    assert isinstance(error, ConcurrencyLimitReached)
    assert (error.concurrency_key, error.holders) == ("account:7", [HOLDER])


def test_cancel_applies_to_queued_runs_and_rerun_not():
    assert "queued" in control_plans.LEGAL_STATUSES["cancel_run"]
    assert "queued" not in control_plans.LEGAL_STATUSES["rerun_flow"]
    assert "expired" in control_plans.LEGAL_STATUSES["rerun_flow"]
    assert control_plans.check_expected_status("queued") == "queued"
    assert control_plans.check_expected_status("expired") == "expired"

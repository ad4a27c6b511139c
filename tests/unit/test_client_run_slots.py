"""Slots, deadlines and the new run fields and statuses (queued, expired) in pgflow.client,
without a database: how their rows are read and how waiting for a run treats them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from pgflow import (
    Client,
    RunNotFound,
    RunTimeout,
)
from pgflow.client import (
    Run,
    RunDeadline,
    RunSlot,
    RunState,
    plans,
    queries,
)
from pgflow.client.plans import first_statement

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


# ---------------------------------------------------------------- slots and deadlines


def test_get_run_slot_parses_its_row_or_returns_none():
    plan = plans.get_run_slot(uuid.UUID(RUN_ID))
    sent, params = first_statement(plan)
    assert sent is queries.GET_RUN_SLOT and params == {"run_id": RUN_ID}
    row = ("account:7", 1, "queue", 2, [uuid.UUID(HOLDER)])
    assert finish(plan, [row]) == RunSlot("account:7", 1, "queue", 2, (HOLDER,))

    plan = plans.get_run_slot(RUN_ID)
    first_statement(plan)
    assert finish(plan, []) is None  # a run without concurrency key


def test_get_run_slot_of_an_unknown_run_is_run_not_found():
    plan = plans.get_run_slot(RUN_ID)
    first_statement(plan)
    error = throw(plan, psycopg.errors.NoDataFound(f"get_run_slot: run {RUN_ID} does not exist"))
    assert isinstance(error, RunNotFound)


def test_get_run_deadline_reads_the_seconds_left_of_the_database():
    plan = plans.get_run_deadline(RUN_ID)
    assert first_statement(plan)[0] is queries.GET_RUN_DEADLINE
    assert finish(plan, [(AT, -3.5, None)]) == RunDeadline(AT, -3.5, None)
    assert RunDeadline(AT, -3.5, None).passed and not RunDeadline(AT, 0.1, None).passed

    plan = plans.get_run_deadline(RUN_ID)
    first_statement(plan)
    assert finish(plan, [(None, None, None)]) is None  # no deadline

    plan = plans.get_run_deadline(RUN_ID)
    first_statement(plan)
    with pytest.raises(RunNotFound):
        plan.send([])


# ---------------------------------------------------------------- run fields and statuses


def test_runs_parse_the_new_columns_and_older_rows_still_parse():
    row = {
        **RUN_ROW,
        "status": "expired",
        "idempotency_key": "order-42",
        "concurrency_key": "account:7",
        "deadline": "2025-01-02T05:04:05+00:00",
        "queued_at": "2025-01-02T03:04:00+00:00",
        "expired_at": "2025-01-02T05:04:07+00:00",
    }
    run = Run.from_row(row)
    assert (run.idempotency_key, run.concurrency_key) == ("order-42", "account:7")
    assert run.deadline == AT + timedelta(hours=2)
    assert run.queued_at == AT - timedelta(seconds=5)
    assert run.finished
    assert run.duration_seconds == 7202.0  # started -> expired

    older = Run.from_row(RUN_ROW)  # an upstream or 0.1 row: no such columns
    assert (older.idempotency_key, older.deadline, older.expired_at) == (None, None, None)


def test_a_queued_run_is_waited_for_and_an_expired_one_is_final(monkeypatch):
    client = Client(NEVER)
    states = iter(
        RunState.from_json({"run": {**RUN_ROW, "status": status}, "steps": []})
        for status in ("queued", "started", "expired")
    )
    monkeypatch.setattr(client, "get_run", lambda run_id: next(states))

    final = client.wait_for_run(RUN_ID, timeout_seconds=5, poll_interval_seconds=0.001)

    assert final.status == "expired"


def test_a_run_still_queued_times_out():
    queued = RunState.from_json({"run": {**RUN_ROW, "status": "queued"}, "steps": []})
    assert not queued.finished
    with pytest.raises(RunTimeout, match="is still queued after 1 s"):
        plans.next_poll(queued, deadline=0.0, timeout_seconds=1, poll_interval_seconds=0.1)

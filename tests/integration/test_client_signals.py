"""Client.send_signal and Client.get_run_waits (and AsyncClient's) against a real database:
a waiting step takes the signal, a signal nobody waits for stays pending, a repeated
idempotency key is a duplicate, JSON text given as RawJson is stored exactly as written
(and checked first), every refusal maps to its pgflow error and stores nothing, and the
waits of a run are read on the database clock."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from pgflow import (
    AsyncClient,
    Client,
    InvalidControlArgument,
    InvalidRunId,
    PermissionDenied,
    RunNotFound,
    RunStateError,
)
from pgflow.client import RunWait, SignalResult
from pgflow.client.signal_records import RawJson
from tests.integration.failing_runs import run_status, step_status
from tests.integration.wait_flows import (
    define_approval_flow,
    define_timer_flow,
    signal_count,
    start_waiting_run,
)


def step_output(conn, run_id, step_slug):
    return conn.execute(
        "select output from pgflow.step_states where run_id = %s and step_slug = %s",
        (run_id, step_slug),
    ).fetchone()[0]


def events(conn, run_id):
    rows = conn.execute(
        "select event, step_slug, actor, reason from pgflow.run_events"
        " where run_id = %s and event like 'signal:%%' order by id",
        (run_id,),
    )
    return rows.fetchall()


def test_a_waiting_step_takes_the_signal_at_once(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    with Client(pgflow_dsn) as client:
        result = client.send_signal(
            run_id, "approved", {"by": "alice"}, actor="alice", reason="looks good"
        )

    assert isinstance(result, SignalResult)
    assert (result.run_id, result.signal_name, result.payload) == (
        run_id,
        "approved",
        {"by": "alice"},
    )
    assert (result.status, result.taken_by_step, result.duplicate) == ("taken", "approve", False)
    assert result.taken_at is not None and result.received_at is not None
    assert (result.actor, result.reason, result.idempotency_key) == ("alice", "looks good", None)
    assert step_status(pgflow_conn, run_id, "approve") == "completed"
    assert step_output(pgflow_conn, run_id, "approve") == {"by": "alice"}
    assert step_status(pgflow_conn, run_id, "ship") == "started"
    assert events(pgflow_conn, run_id) == [
        ("signal:received", None, "alice", "looks good"),
        ("signal:taken", "approve", "alice", "looks good"),
    ]


def test_a_signal_nobody_waits_for_stays_pending_with_the_default_actor(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    with Client(pgflow_dsn) as client:
        result = client.send_signal(run_id, "rejected")

    assert (result.status, result.taken_by_step, result.taken_at) == ("pending", None, None)
    assert (result.payload, result.actor, result.duplicate) == (None, "app", False)
    assert step_status(pgflow_conn, run_id, "approve") == "waiting"


def test_the_same_idempotency_key_twice_is_a_duplicate_storing_nothing(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    with Client(pgflow_dsn) as client:
        first = client.send_signal(run_id, "approved", {"n": 1}, idempotency_key="req-1")
        again = client.send_signal(run_id, "approved", {"n": 2}, idempotency_key="req-1")

    assert (first.duplicate, again.duplicate) == (False, True)
    assert again.signal_id == first.signal_id
    assert (again.payload, again.status, again.taken_by_step) == ({"n": 1}, "taken", "approve")
    assert signal_count(pgflow_conn, run_id) == 1


def stored_payload_text(conn, run_id):
    (text,) = conn.execute(
        "select payload::text from pgflow.signals where run_id = %s", (run_id,)
    ).fetchone()
    return text


def test_raw_json_text_is_stored_exactly_as_written(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    pending = start_waiting_run(pgflow_conn)
    text = (
        '{"a": 1.10, "b": 0.1000000000000000055511151231257827,'
        ' "c": 123456789012345678901234567890.5, "d": 1e400}'
    )

    with Client(pgflow_dsn) as client:
        taken = client.send_signal(run_id, "approved", RawJson(text))
        later = client.send_signal(pending, "later", RawJson(" [1.10] "))

    (expected,) = pgflow_conn.execute("select %s::jsonb::text", (text,)).fetchone()
    assert stored_payload_text(pgflow_conn, run_id) == expected
    assert '"a": 1.10' in expected and '"c": 123456789012345678901234567890.5' in expected
    (output,) = pgflow_conn.execute(
        "select output::text from pgflow.step_states where run_id = %s and step_slug = 'approve'",
        (run_id,),
    ).fetchone()
    assert output == expected  # the flow.wait step's output: the same exact numbers
    assert taken.status == "taken"
    assert stored_payload_text(pgflow_conn, pending) == "[1.10]"
    assert later.payload == [1.1]  # read back as a Python value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{by: alice}", "Expecting property name"),
        ("[NaN]", "NaN is not a JSON value"),
        ('"\\u0000"', "jsonb cannot store"),
        (b"[1]", "must be a str"),
    ],
)
def test_raw_json_that_postgresql_refuses_is_refused_before_sending(
    pgflow_dsn, pgflow_conn, text, why
):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    with Client(pgflow_dsn) as client, pytest.raises(InvalidControlArgument, match=why) as error:
        client.send_signal(run_id, "approved", RawJson(text))

    assert str(error.value).startswith("signal payload is not JSON: ")
    assert signal_count(pgflow_conn, run_id) == 0
    assert step_status(pgflow_conn, run_id, "approve") == "waiting"


def test_refusals_map_to_pgflow_errors_and_store_nothing(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    finished = start_waiting_run(pgflow_conn)
    pgflow_conn.execute("select pgflow.cancel_run(%s::uuid, 'tester', null)", (finished,))
    unknown = str(uuid.uuid4())

    with Client(pgflow_dsn) as client:
        with pytest.raises(RunNotFound, match=f"send_signal: run {unknown} does not exist"):
            client.send_signal(unknown, "approved")
        with pytest.raises(RunStateError) as refused:
            client.send_signal(finished, "approved")
        with pytest.raises(InvalidControlArgument, match="signal name must be 1 to 128"):
            client.send_signal(run_id, "  ")
        with pytest.raises(InvalidControlArgument, match="at most 255 characters"):
            client.send_signal(run_id, "approved", idempotency_key="k" * 256)
        with pytest.raises(InvalidControlArgument, match="actor"):
            client.send_signal(run_id, "approved", actor="two\nlines")
        with pytest.raises(InvalidControlArgument, match="not JSON-serialisable"):
            client.send_signal(run_id, "approved", {1, 2})  # nothing sent
        with pytest.raises(InvalidControlArgument, match="actor must name who acts"):
            client.send_signal(run_id, "approved", actor=" ")  # nothing sent
        with pytest.raises(InvalidRunId):
            client.send_signal("not-a-uuid", "approved")

    assert (refused.value.verb, refused.value.run_id, refused.value.status) == (
        "send_signal",
        finished,
        "cancelled",
    )
    assert signal_count(pgflow_conn, run_id) == 0
    assert signal_count(pgflow_conn, finished) == 0
    assert step_status(pgflow_conn, run_id, "approve") == "waiting"


def test_a_role_without_client_or_operator_rights_is_denied(pgflow_dsn, pgflow_conn, login_role):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    with Client(login_role()) as client, pytest.raises(PermissionDenied, match="pgflow_client"):
        client.send_signal(run_id, "approved")
    with Client(login_role("pgflow_client")) as client:
        taken = client.send_signal(run_id, "approved")

    assert taken.status == "taken"
    assert signal_count(pgflow_conn, run_id) == 1


def test_get_run_waits_on_the_database_clock(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    define_timer_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    sleeping = start_waiting_run(pgflow_conn, "cooling", "cool_off")
    pgflow_conn.execute(
        "update pgflow.wait_states set waiting_since = waiting_since - interval '3 hours',"
        " deadline = deadline - interval '3 hours' where run_id = %s",
        (run_id,),
    )
    pgflow_conn.execute(  # the steps were created as long ago (a step starts as it waits)
        "update pgflow.step_states set created_at = created_at - interval '3 hours'"
        " where run_id = %s",
        (run_id,),
    )

    with Client(pgflow_dsn) as client:
        (waiting,) = client.get_run_waits(run_id)
        (timer,) = client.get_run_waits(sleeping)
        client.send_signal(run_id, "approved")
        (resolved,) = client.get_run_waits(run_id)
        none = client.get_run_waits(str(uuid.uuid4()))

    assert isinstance(waiting, RunWait) and waiting.waiting
    assert (waiting.step_slug, waiting.kind, waiting.signal_name) == (
        "approve",
        "signal",
        "approved",
    )
    assert (waiting.resolved_at, waiting.outcome) == (None, None)
    assert waiting.deadline is not None and waiting.deadline > waiting.waiting_since
    assert 3 * 3600 <= waiting.waited_seconds < 3 * 3600 + 60
    assert 21 * 3600 - 60 < waiting.seconds_left <= 21 * 3600
    assert (timer.kind, timer.signal_name, timer.step_slug) == ("timer", None, "cool_off")
    assert 3600 - 60 < timer.seconds_left <= 3600
    assert not resolved.waiting
    assert (resolved.outcome, resolved.seconds_left) == ("signal", None)
    assert resolved.resolved_at is not None
    assert none == []


def test_async_client_sends_signals_and_reads_waits(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            waits = await client.get_run_waits(run_id)
            sent = await client.send_signal(
                run_id, "approved", RawJson("[1, 2.50]"), idempotency_key="k"
            )
            again = await client.send_signal(run_id, "approved", idempotency_key="k")
            with pytest.raises(RunNotFound):
                await client.send_signal(uuid.uuid4(), "approved")
            return waits, sent, again

    waits, sent, again = asyncio.run(main())

    assert [w.step_slug for w in waits] == ["approve"]
    assert (sent.status, sent.payload, sent.duplicate) == ("taken", [1, 2.5], False)
    assert stored_payload_text(pgflow_conn, run_id) == "[1, 2.50]"
    assert (again.signal_id, again.duplicate) == (sent.signal_id, True)
    assert run_status(pgflow_conn, run_id) == "started"

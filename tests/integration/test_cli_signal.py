"""`pgflow signal` and the waits in `pgflow status` against a real database: the command
stores the signal and says who took it, a duplicate says so, bad JSON is a usage error
that sends nothing, a refusal exits 1, and `status` shows what a waiting step waits for
(database clock)."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner

from pgflow.cli import control
from pgflow.cli.main import main
from tests.integration.failing_runs import step_status
from tests.integration.wait_flows import (
    define_approval_flow,
    define_timer_flow,
    signal_count,
    start_waiting_run,
)


@pytest.fixture(autouse=True)
def os_user(monkeypatch):
    """The CLI's default actor is cli:<os user>; make the user known."""
    monkeypatch.setattr(control.getpass, "getuser", lambda: "tester")


def invoke(dsn, *args):
    return CliRunner().invoke(main, [*args, "--dsn", dsn])


def stored_signal(conn, run_id):
    return conn.execute(
        "select signal_id, signal_name, payload, status, taken_by_step, actor, reason,"
        " idempotency_key from pgflow.signals where run_id = %s",
        (run_id,),
    ).fetchall()


def test_signal_is_taken_by_the_waiting_step(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    result = invoke(
        pgflow_dsn,
        "signal",
        run_id,
        "approved",
        "--payload",
        '{"by": "alice"}',
        "--idempotency-key",
        "req-1",
        "--reason",
        "ok",
    )

    assert result.exit_code == 0, result.output
    ((signal_id, *rest),) = stored_signal(pgflow_conn, run_id)
    assert rest == ["approved", {"by": "alice"}, "taken", "approve", "cli:tester", "ok", "req-1"]
    assert result.stdout == f"signal {signal_id} approved of run {run_id}: taken by step approve\n"
    assert step_status(pgflow_conn, run_id, "approve") == "completed"

    again = invoke(pgflow_dsn, "signal", run_id, "approved", "--idempotency-key", "req-1")

    assert again.exit_code == 0, again.output
    assert again.stdout == (
        f"signal {signal_id} approved of run {run_id}: taken by step approve (duplicate: "
        "already sent with idempotency key req-1, nothing new stored)\n"
    )
    assert signal_count(pgflow_conn, run_id) == 1


def test_signal_nobody_waits_for_is_pending_with_the_given_actor(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    result = invoke(pgflow_dsn, "signal", run_id, "later", "--actor", "ops:bob")

    assert result.exit_code == 0, result.output
    ((signal_id, name, payload, status, step, actor, reason, key),) = stored_signal(
        pgflow_conn, run_id
    )
    assert (name, payload, status, step, actor, reason, key) == (
        "later",
        None,
        "pending",
        None,
        "ops:bob",
        None,
        None,
    )
    assert result.stdout == (
        f"signal {signal_id} later of run {run_id}: pending (no step waits for it yet)\n"
    )


def test_payload_that_is_not_json_is_a_usage_error_and_sends_nothing(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    result = invoke(pgflow_dsn, "signal", run_id, "approved", "--payload", "{by: alice}")

    assert result.exit_code == 2
    assert "--payload is not JSON" in result.output
    assert signal_count(pgflow_conn, run_id) == 0
    assert step_status(pgflow_conn, run_id, "approve") == "waiting"


def test_payload_from_a_file(pgflow_dsn, pgflow_conn, tmp_path):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"amount": 12}))

    result = invoke(pgflow_dsn, "signal", run_id, "approved", "--payload", f"@{payload}")

    assert result.exit_code == 0, result.output
    assert stored_signal(pgflow_conn, run_id)[0][2] == {"amount": 12}


def test_refused_signals_exit_1_with_the_reason(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    invoke(pgflow_dsn, "cancel", run_id)
    unknown = str(uuid.uuid4())

    finished = invoke(pgflow_dsn, "signal", run_id, "approved")
    missing = invoke(pgflow_dsn, "signal", unknown, "approved")
    blank = invoke(pgflow_dsn, "signal", run_id, " ")
    not_a_uuid = invoke(pgflow_dsn, "signal", "nope", "approved")

    assert (finished.exit_code, missing.exit_code, blank.exit_code) == (1, 1, 1)
    assert f"send_signal: run {run_id} is cancelled" in finished.output
    assert f"send_signal: run {unknown} does not exist" in missing.output
    assert "signal name must be 1 to 128 characters" in blank.output
    assert not_a_uuid.exit_code == 2
    assert signal_count(pgflow_conn, run_id) == 0


def note_of(result, step_slug):
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("STEP"))
    row = next(line for line in lines if line.startswith(step_slug + " "))
    return row[header.index("NOTE") :]


def test_status_shows_what_a_waiting_step_waits_for(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    define_approval_flow(pgflow_conn, "open_ended", timeout=None)
    define_timer_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    open_ended = start_waiting_run(pgflow_conn, "open_ended")
    sleeping = start_waiting_run(pgflow_conn, "cooling", "cool_off")
    pgflow_conn.execute(
        "update pgflow.wait_states set waiting_since = now() - interval '3 hours 10 minutes',"
        " deadline = now() + interval '21 hours 5 minutes' where run_id = %s",
        (run_id,),
    )
    pgflow_conn.execute(
        "update pgflow.wait_states set deadline = now() + interval '2 hours 30 minutes'"
        " where run_id = %s",
        (sleeping,),
    )
    (due,) = pgflow_conn.execute(
        "select deadline from pgflow.wait_states where run_id = %s", (sleeping,)
    ).fetchone()

    waiting = invoke(pgflow_dsn, "status", run_id)
    no_timeout = invoke(pgflow_dsn, "status", open_ended)
    timer = invoke(pgflow_dsn, "status", sleeping)
    as_json = invoke(pgflow_dsn, "status", run_id, "--json")

    assert note_of(waiting, "approve") == "waiting for signal approved since 3h, times out in 21h"
    assert note_of(no_timeout, "approve").startswith("waiting for signal approved since ")
    assert "times out" not in note_of(no_timeout, "approve")
    assert note_of(timer, "cool_off") == (
        f"sleeping until {due.astimezone().strftime('%Y-%m-%d %H:%M:%S')}, due in 2h"
    )
    (wait,) = json.loads(as_json.stdout)["waits"]
    assert (wait["step_slug"], wait["kind"], wait["signal_name"]) == (
        "approve",
        "signal",
        "approved",
    )


def test_status_of_a_run_without_waiting_steps_shows_no_wait(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    invoke(pgflow_dsn, "signal", run_id, "approved")

    result = invoke(pgflow_dsn, "status", run_id)
    as_json = invoke(pgflow_dsn, "status", run_id, "--json")

    assert note_of(result, "approve") == ""
    assert "waiting for" not in result.stdout
    assert json.loads(as_json.stdout)["waits"] == []

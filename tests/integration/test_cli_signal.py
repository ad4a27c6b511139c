"""`pgflow signal` and the waits in `pgflow status` against a real database: the command
stores the signal and says who took it, or why it is pending (no step waits for it, the
payload does not match, the run is paused), a duplicate says so, the payload is stored
exactly as written (numbers keep their digits), bad JSON (NaN and Infinity included) is a
usage error that sends nothing, a refusal exits 1, and `status` shows what a waiting step
waits for (database clock), and that a paused run's overdue wait fires when resumed."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from click.testing import CliRunner

from pgflow.cli import control
from pgflow.cli.main import main
from tests.integration.failing_runs import step_status
from tests.integration.wait_flows import (
    define_approval_flow,
    define_timer_flow,
    move_deadline_past,
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
        f"signal {signal_id} later of run {run_id}: pending: no step waits for later yet\n"
    )


def define_matching_flow(conn, slug="matching"):
    """``approve`` waits for ``approved`` whose payload contains {"ok": true}."""
    conn.execute("select pgflow.create_flow(%s)", (slug,))
    conn.execute("select pgflow.add_step(%s, 'approve')", (slug,))
    conn.execute(
        "select pgflow.add_wait(%s, 'approve', 'approved', signal_match => '{\"ok\": true}',"
        " runs_handler => false)",
        (slug,),
    )


def test_pending_says_the_payload_does_not_match_the_waiting_step(pgflow_dsn, pgflow_conn):
    define_matching_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn, "matching")

    result = invoke(pgflow_dsn, "signal", run_id, "approved", "--payload", '{"ok": false}')

    assert result.exit_code == 0, result.output
    ((signal_id, *_),) = stored_signal(pgflow_conn, run_id)
    assert result.stdout == (
        f"signal {signal_id} approved of run {run_id}: pending: step approve waits for "
        "approved but the payload does not match its signal_match\n"
    )
    assert step_status(pgflow_conn, run_id, "approve") == "waiting"


def test_pending_says_the_run_is_paused(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    assert invoke(pgflow_dsn, "pause", run_id).exit_code == 0

    result = invoke(pgflow_dsn, "signal", run_id, "approved")

    assert result.exit_code == 0, result.output
    ((signal_id, _, _, status, *_),) = stored_signal(pgflow_conn, run_id)
    assert status == "pending"
    assert result.stdout == (
        f"signal {signal_id} approved of run {run_id}: pending: the run is paused (a step "
        "waiting for approved takes it when the run is resumed, if the payload matches its "
        "signal_match)\n"
    )


@pytest.mark.parametrize(
    "number",
    [
        "1.10",
        "0.1000000000000000055511151231257827",
        "1e2",
        "123456789012345678901234567890.5",
        "1e400",
        "-0.0",
        "1" * 400,
    ],
)
def test_the_payload_is_stored_exactly_as_written(pgflow_dsn, pgflow_conn, number):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    text = f'{{"amount": {number}, "list": [{number}]}}'

    result = invoke(pgflow_dsn, "signal", run_id, "approved", "--payload", text)

    assert result.exit_code == 0, result.output
    stored, expected = pgflow_conn.execute(
        "select payload::text, %s::jsonb::text from pgflow.signals where run_id = %s",
        (text, run_id),
    ).fetchone()
    assert stored == expected  # jsonb's reading of the very text: every digit kept
    (amount,) = pgflow_conn.execute(
        "select (payload->>'amount') from pgflow.signals where run_id = %s", (run_id,)
    ).fetchone()
    assert amount == pgflow_conn.execute("select %s::numeric::text", (number,)).fetchone()[0]


def test_the_payload_from_a_file_is_stored_exactly_as_written(pgflow_dsn, pgflow_conn, tmp_path):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    payload = tmp_path / "payload.json"
    payload.write_text('{"amount": 1.10}\n')

    result = invoke(pgflow_dsn, "signal", run_id, "approved", "--payload", f"@{payload}")

    assert result.exit_code == 0, result.output
    assert pgflow_conn.execute(
        "select payload::text from pgflow.signals where run_id = %s", (run_id,)
    ).fetchone() == ('{"amount": 1.10}',)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"amount": NaN}', "NaN is not a JSON value"),
        ("Infinity", "Infinity is not a JSON value"),
        ("[-Infinity]", "-Infinity is not a JSON value"),
        ('{"note": "a\\u0000b"}', "jsonb cannot store"),
        ('"\\ud800"', "unpaired surrogate"),
    ],
)
def test_json_that_postgresql_refuses_is_a_usage_error_and_sends_nothing(
    pgflow_dsn, pgflow_conn, text, why
):
    define_approval_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)

    result = invoke(pgflow_dsn, "signal", run_id, "approved", "--payload", text)

    assert result.exit_code == 2, result.output
    assert "--payload is not JSON" in result.output
    assert why in result.output
    assert signal_count(pgflow_conn, run_id) == 0
    assert step_status(pgflow_conn, run_id, "approve") == "waiting"


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


def test_status_of_a_paused_run_says_an_overdue_wait_fires_when_resumed(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn)
    define_timer_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn)
    sleeping = start_waiting_run(pgflow_conn, "cooling", "cool_off")
    running = start_waiting_run(pgflow_conn)
    for paused in (run_id, sleeping):
        assert invoke(pgflow_dsn, "pause", paused).exit_code == 0
    for run, step in ((run_id, "approve"), (sleeping, "cool_off"), (running, "approve")):
        move_deadline_past(pgflow_conn, run, step)

    signal_wait = note_of(invoke(pgflow_dsn, "status", run_id), "approve")
    timer = note_of(invoke(pgflow_dsn, "status", sleeping), "cool_off")
    not_paused = note_of(invoke(pgflow_dsn, "status", running), "approve")

    assert re.fullmatch(
        r"waiting for signal approved since \d+s, timeout due \(since \d+s; fires when the "
        r"run is resumed\)",
        signal_wait,
    )
    assert re.fullmatch(
        r"sleeping until .*, due now \(since \d+s; fires when the run is resumed\)", timer
    )
    assert not_paused.endswith("; fires at the next tick)")

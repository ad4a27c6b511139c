"""`pgflow cancel|pause|resume|retry|rerun|skip|complete-step|events` against a real database,
one run at a time (the bulk forms: test_cli_bulk_control.py)."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner

from pgflow.cli import control
from pgflow.cli.main import main
from tests.integration.failing_runs import (
    define_one_step,
    fail_attempt,
    failed_run,
    run_status,
    start_run,
    step_status,
)
from tests.integration.sql_worker import define_two_steps, process_queued_tasks


@pytest.fixture(autouse=True)
def os_user(monkeypatch):
    """The CLI's default actor is cli:<os user>; make the user known."""
    monkeypatch.setattr(control.getpass, "getuser", lambda: "tester")


def invoke(dsn, *args):
    return CliRunner().invoke(main, [*args, "--dsn", dsn])


def last_event(conn, run_id, event):
    return conn.execute(
        "select actor, reason from pgflow.run_events where run_id = %s and event = %s"
        " order by id desc limit 1",
        (run_id, event),
    ).fetchone()


def test_cancel_records_the_default_actor_and_the_reason(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    result = invoke(pgflow_dsn, "cancel", run_id, "--reason", "customer asked")

    assert result.exit_code == 0, result.output
    assert result.stdout == f"cancelled run {run_id}: now cancelled\n"
    assert last_event(pgflow_conn, run_id, "run:cancelled") == ("cli:tester", "customer asked")


def test_cancel_twice_is_refused_with_the_status(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")
    invoke(pgflow_dsn, "cancel", run_id)

    again = invoke(pgflow_dsn, "cancel", run_id)

    assert again.exit_code == 1
    assert f"cancel_run: run {run_id} is cancelled" in again.output
    assert "CONTEXT" not in again.output


def test_expected_status_left_is_nothing_done_with_exit_0(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    result = invoke(pgflow_dsn, "pause", run_id, "--expected-status", "paused", "--actor", "bot")

    assert result.exit_code == 0, result.output
    assert result.stdout == f"run {run_id}: run is started, not paused: nothing done\n"
    assert run_status(pgflow_conn, run_id) == "started"


def test_pause_then_resume_with_an_explicit_actor(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    paused = invoke(pgflow_dsn, "pause", run_id, "--actor", "ops:bob", "--reason", "deploy")
    status_while_paused = invoke(pgflow_dsn, "status", run_id)
    resumed = invoke(pgflow_dsn, "resume", run_id, "--actor", "ops:bob")

    assert paused.exit_code == 0, paused.output
    assert "paused   by ops:bob at " in status_while_paused.stdout
    assert status_while_paused.stdout.splitlines()[3].endswith(": deploy")
    assert resumed.stdout == f"resumed run {run_id}: now started\n"
    assert last_event(pgflow_conn, run_id, "run:resumed") == ("ops:bob", None)


def test_retry_one_failed_run(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "boom")

    result = invoke(pgflow_dsn, "retry", run_id, "--expected-status", "failed")

    assert result.stdout == f"retried run {run_id}: now started\n"
    assert step_status(pgflow_conn, run_id, "only") == "started"


def test_rerun_prints_the_new_run_id(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    old = start_run(pgflow_conn, "two_steps", '{"n": 3}')

    result = invoke(pgflow_dsn, "rerun", old)

    assert result.exit_code == 0, result.output
    new = result.stdout.strip()
    assert new != old
    rerun_of, flow_input = pgflow_conn.execute(
        "select rerun_of, input from pgflow.runs where run_id = %s", (new,)
    ).fetchone()
    assert (str(rerun_of), flow_input) == (old, {"n": 3})
    assert f"rerun of {old}" in result.stderr


def test_skip_a_created_step_and_unknown_step(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    skipped = invoke(pgflow_dsn, "skip", run_id, "second", "--reason", "not needed")
    unknown = invoke(pgflow_dsn, "skip", run_id, "third")

    assert skipped.stdout == f"skipped step second of run {run_id}: now started\n"
    assert step_status(pgflow_conn, run_id, "second") == "skipped"
    assert unknown.exit_code == 1
    assert "has no step 'third'" in unknown.output


def test_complete_step_with_json_output_from_a_file(pgflow_dsn, pgflow_conn, tmp_path):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")
    output = tmp_path / "output.json"
    output.write_text('{"rows": 12}')
    seen = []

    result = invoke(pgflow_dsn, "complete-step", run_id, "first", "--output", f"@{output}")
    process_queued_tasks(pgflow_conn, "two_steps", lambda s, task_input, f: seen.append(task_input))

    assert result.exit_code == 0, result.output
    assert seen == [{"first": {"rows": 12}}]
    assert run_status(pgflow_conn, run_id) == "completed"


def test_events_table_oldest_first_and_json(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "boom")
    invoke(pgflow_dsn, "retry", run_id, "--reason", "try again")

    table = invoke(pgflow_dsn, "events", run_id)
    as_json = invoke(pgflow_dsn, "events", run_id, "--json")
    unknown = invoke(pgflow_dsn, "events", str(uuid.uuid4()))

    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["WHEN", "EVENT", "STEP", "TASK", "ACTOR", "REASON", "DETAILS"]
    events = [line.split()[2] for line in lines[1:]]  # after the date and time columns
    assert events[0] == "run:started"
    assert events.index("task:failed") < events.index("run:failed") < events.index("run:retried")
    retried = next(line for line in lines if "run:retried" in line)
    assert "cli:tester" in retried and "try again" in retried
    parsed = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [p["event"] for p in parsed] == [e for e in events]
    assert parsed[0]["run_id"] == run_id
    assert unknown.exit_code == 0
    assert unknown.stdout == ""
    assert "no events" in unknown.stderr


def test_status_says_why_a_run_failed(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "ValueError: bad row 17\n  more detail")

    result = invoke(pgflow_dsn, "status", run_id)

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[3] == (
        "failed   at step only: ValueError: bad row 17 more detail"
    )


def test_status_shows_the_last_error_and_next_attempt_of_a_retrying_step(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "flaky", max_attempts=3, base_delay=600)
    run_id = start_run(pgflow_conn, "flaky")
    fail_attempt(pgflow_conn, "flaky", "timeout talking to S3")

    result = invoke(pgflow_dsn, "status", run_id)
    as_json = invoke(pgflow_dsn, "status", run_id, "--json")

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("RETRYING STEP"))
    row = lines[header + 1]
    assert row.split()[:3] == ["only", "0", "1"]
    assert "in 20 min" in row or "in 19 min" in row  # 600 * 2^1 s after the failure
    assert row.endswith("timeout talking to S3")
    (retrying,) = json.loads(as_json.stdout)["retrying_tasks"]
    assert (retrying["step_slug"], retrying["error_message"]) == ("only", "timeout talking to S3")

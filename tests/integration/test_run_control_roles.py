"""Who may operate runs, through pgflow.Client and the CLI, connecting as login roles:
pgflow_operator may call the run-control verbs; pgflow_client may not (a clear
PermissionDenied, nothing changed) but still reads a run's events.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pgflow import Client, PermissionDenied
from pgflow.cli.main import main
from tests.integration.failing_runs import define_one_step, failed_run, run_status, start_run
from tests.integration.sql_worker import define_two_steps


def test_a_client_role_may_not_cancel_and_gets_a_clear_error(pgflow_conn, login_role):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")
    client_dsn = login_role("pgflow_client")

    with Client(client_dsn) as client:
        with pytest.raises(PermissionDenied, match="pgflow_operator") as denied:
            client.cancel_run(run_id, actor="mallory", reason="no right to")
        events = client.events(run_id)  # reading the trail is allowed

    assert isinstance(denied.value, PermissionError)
    assert "permission denied for function cancel_run" in str(denied.value)
    assert run_status(pgflow_conn, run_id) == "started"
    assert [e.event for e in events] == ["run:started", "step:started"]


@pytest.mark.parametrize(
    "verb",
    ["pause_run", "retry_run", "rerun", "skip_step", "complete_step"],
)
def test_a_client_role_may_call_no_verb(pgflow_conn, login_role, verb):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")
    runs_before = pgflow_conn.execute("select count(*) from pgflow.runs").fetchone()

    with Client(login_role("pgflow_client")) as client, pytest.raises(PermissionDenied):
        if verb == "skip_step":
            client.skip_step(run_id, "second", actor="mallory")
        elif verb == "complete_step":
            client.complete_step(run_id, "first", 1, actor="mallory")
        else:
            getattr(client, verb)(run_id, actor="mallory")

    assert pgflow_conn.execute("select count(*) from pgflow.runs").fetchone() == runs_before
    actors = pgflow_conn.execute(
        "select count(*) from pgflow.run_events where actor = 'mallory'"
    ).fetchone()
    assert actors == (0,)


def test_an_operator_role_retries_and_is_recorded_as_the_actor(pgflow_conn, login_role):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "boom")

    with Client(login_role("pgflow_operator")) as client:
        result = client.retry_run(run_id, actor="oncall:alice", reason="transient")
        events = client.events(run_id)

    assert (result.status, result.changed) == ("started", True)
    retried = next(e for e in events if e.event == "run:retried")
    assert (retried.actor, retried.reason) == ("oncall:alice", "transient")


def test_cli_as_a_client_role_fails_with_the_role_to_grant(pgflow_conn, login_role):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    denied = CliRunner().invoke(
        main, ["pause", run_id, "--dsn", login_role("pgflow_client"), "--reason", "x"]
    )
    allowed = CliRunner().invoke(
        main, ["pause", run_id, "--dsn", login_role("pgflow_operator"), "--reason", "x"]
    )

    assert denied.exit_code == 1
    assert "permission denied for function pause_run" in denied.output
    assert "pgflow_operator" in denied.output
    assert "Traceback" not in denied.output
    assert allowed.exit_code == 0, allowed.output
    assert run_status(pgflow_conn, run_id) == "paused"

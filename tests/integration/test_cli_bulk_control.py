"""The bulk forms `pgflow retry|cancel|pause|resume --flow F ...` against a real database:
select, then one guarded call per run, counting what moved and what had moved on."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pgflow import Client
from pgflow.cli import bulk, control
from pgflow.cli.main import main
from tests.integration.failing_runs import define_one_step, failed_run, run_status, start_run
from tests.integration.sql_worker import define_two_steps


@pytest.fixture(autouse=True)
def os_user(monkeypatch):
    """The CLI's default actor is cli:<os user>; make the user known."""
    monkeypatch.setattr(control.getpass, "getuser", lambda: "tester")


def invoke(dsn, *args):
    return CliRunner().invoke(main, [*args, "--dsn", dsn])


def test_bulk_retry_counts_a_run_retried_meanwhile_as_moved_on(
    pgflow_dsn, pgflow_conn, monkeypatch
):
    define_one_step(pgflow_conn, "fragile")
    runs = [failed_run(pgflow_conn, "fragile", f"boom {i}") for i in range(3)]
    real_select = bulk.select_runs

    def select_then_someone_retries_one(client, selection):
        selected = real_select(client, selection)
        # Between the selection and the calls, another operator retries one of the runs.
        with Client(pgflow_dsn) as other:
            other.retry_run(runs[1], actor="someone-else")
        return selected

    monkeypatch.setattr(bulk, "select_runs", select_then_someone_retries_one)

    result = invoke(pgflow_dsn, "retry", "--flow", "fragile", "--reason", "transient")

    assert result.exit_code == 0, result.output
    assert result.stdout == "retry_run: 2 moved, 1 had already moved on, 0 refused (3 selected)\n"
    assert f"{runs[1]}: already moved on (run is started, not failed: nothing done)" in (
        result.stderr
    )
    assert [run_status(pgflow_conn, r) for r in runs] == ["started"] * 3
    retried_by = pgflow_conn.execute(
        "select run_id::text, actor from pgflow.run_events where event = 'run:retried'"
    ).fetchall()
    assert sorted(retried_by) == sorted(
        [(runs[0], "cli:tester"), (runs[1], "someone-else"), (runs[2], "cli:tester")]
    )


def test_bulk_selection_by_error_text_and_step_with_dry_run(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    disk = [failed_run(pgflow_conn, "fragile", "OSError: Disk full") for _ in range(2)]
    failed_run(pgflow_conn, "fragile", "KeyError: 'id'")

    dry = invoke(pgflow_dsn, "retry", "--flow", "fragile", "--error-contains", "disk", "--dry-run")
    other_step = invoke(pgflow_dsn, "retry", "--flow", "fragile", "--step", "nope", "--dry-run")
    limited = invoke(
        pgflow_dsn,
        "retry",
        "--flow",
        "fragile",
        "--step",
        "only",
        "--error-contains",
        "disk",
        "--limit",
        "1",
    )

    assert dry.exit_code == 0, dry.output
    assert sorted(dry.stdout.split()) == sorted(disk)
    assert "would act on 2 runs (dry run)" in dry.stderr
    assert other_step.stdout == ""
    assert limited.stdout == "retry_run: 1 moved, 0 had already moved on, 0 refused (1 selected)\n"
    statuses = pgflow_conn.execute(
        "select status, count(*) from pgflow.runs group by status order by status"
    ).fetchall()
    assert statuses == [("failed", 2), ("started", 1)]


def test_bulk_pause_resume_and_cancel_of_started_runs(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    define_two_steps(pgflow_conn, "other")
    runs = [start_run(pgflow_conn, "two_steps") for _ in range(3)]
    untouched = start_run(pgflow_conn, "other")

    paused = invoke(pgflow_dsn, "pause", "--flow", "two_steps")
    resumed = invoke(pgflow_dsn, "resume", "--flow", "two_steps", "--limit", "2")
    cancelled = invoke(pgflow_dsn, "cancel", "--flow", "two_steps", "--status", "paused")

    assert paused.stdout == "pause_run: 3 moved, 0 had already moved on, 0 refused (3 selected)\n"
    assert resumed.stdout.startswith("resume_run: 2 moved")
    assert cancelled.stdout.startswith("cancel_run: 1 moved")
    assert sorted(run_status(pgflow_conn, r) for r in runs) == ["cancelled", "started", "started"]
    assert run_status(pgflow_conn, untouched) == "started"


def test_bulk_as_a_client_role_stops_at_the_first_denial(pgflow_conn, login_role):
    define_one_step(pgflow_conn, "fragile")
    runs = [failed_run(pgflow_conn, "fragile", "boom") for _ in range(2)]

    result = invoke(login_role("pgflow_client"), "retry", "--flow", "fragile")

    assert result.exit_code == 1
    assert "pgflow_operator" in result.output
    assert "stopped: retry_run: 0 moved, 0 had already moved on, 0 refused (2 selected)" in (
        result.stderr
    )
    assert [run_status(pgflow_conn, r) for r in runs] == ["failed", "failed"]


def test_bulk_with_nothing_selected(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    failed_run(pgflow_conn, "fragile", "boom")  # failed: not selected by cancel

    result = invoke(pgflow_dsn, "cancel", "--flow", "fragile")

    assert result.exit_code == 0, result.output
    assert result.stdout == "cancel_run: 0 moved, 0 had already moved on, 0 refused (0 selected)\n"

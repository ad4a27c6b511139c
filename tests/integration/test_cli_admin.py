"""pgflow check-schema, migrate, schedules and schedule sync through the CLI."""

from __future__ import annotations

import json

import psycopg
from click.testing import CliRunner

from pgflow.cli.main import main
from tests.integration.test_worker_schedules import cron_db  # noqa: F401  (fixture)

FLOWS = "tests.integration.flows.scheduled"


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_check_schema_is_green_on_a_fresh_install(pgflow_dsn):
    result = run("check-schema", "--dsn", pgflow_dsn)

    assert result.exit_code == 0, result.output
    assert "OK" in result.output


def test_check_schema_is_red_with_the_reason_on_a_changed_signature(pgflow_dsn, pgflow_conn):
    pgflow_conn.execute(
        "alter function pgflow.fail_task(uuid, text, int, text, int) rename to fail_task_renamed"
    )

    result = run("check-schema", "--dsn", pgflow_dsn)

    assert result.exit_code == 1
    assert "fail_task" in result.output


def test_check_schema_is_red_on_a_flow_whose_queue_is_missing(pgflow_dsn, pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('lost_queue')")
    pgflow_conn.execute("select pgmq.drop_queue('lost_queue')")

    result = run("check-schema", "--dsn", pgflow_dsn, "--json")

    assert result.exit_code == 1
    report = json.loads(result.output)
    assert any("lost_queue" in e["message"] for e in report["errors"])


def test_migrate_reports_an_up_to_date_schema(pgflow_dsn):
    result = run("migrate", "--dsn", pgflow_dsn)

    assert result.exit_code == 0, result.output
    assert "up to date" in result.output


def test_schedule_sync_and_schedules_list(cron_db):  # noqa: F811
    with psycopg.connect(cron_db, autocommit=True) as conn:
        from tests.integration.flows.scheduled import cleanup_job, ticker

        conn.execute(ticker.to_sql())
        conn.execute(cleanup_job.to_sql())

    synced = run("schedule", "sync", f"{FLOWS}:ticker", f"{FLOWS}:cleanup_job", "--dsn", cron_db)
    listed = run("schedules", "--dsn", cron_db)

    assert synced.exit_code == 0, synced.output
    assert "ticker: created" in synced.output
    assert "cleanup_job: created" in synced.output
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[0].split() == ["SCHEDULE", "FLOW", "CRON", "ACTIVE", "NEXT", "RUN"]
    assert any(line.startswith("ticker") and "* * * * *" in line for line in lines[1:])


def test_schedules_without_any_schedule(pgflow_dsn):
    result = run("schedules", "--dsn", pgflow_dsn)

    assert result.exit_code == 0
    assert "no schedules" in result.output


def test_schedule_sync_of_a_flow_not_in_the_database_says_what_to_do(cron_db):  # noqa: F811
    result = run("schedule", "sync", f"{FLOWS}:ticker", "--dsn", cron_db)

    assert result.exit_code == 1
    assert "Flow 'ticker' does not exist" in result.output
    assert "Start the flow's worker once" in result.output
    assert "CONTEXT" not in result.output and "PL/pgSQL" not in result.output

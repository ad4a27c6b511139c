"""pgflow.schema.check against real databases: green on a fresh install, red with the
reason on a changed function, an old pgmq or a flow without its queue; warnings (exit 0)
for a queue without NOTIFY and for pg_cron without the stalled-task job.
"""

from __future__ import annotations

import asyncio
import importlib.resources
import json
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

import pgflow
from pgflow.errors import SchemaVersionMismatch
from pgflow.schema.check import (
    Finding,
    SchemaReport,
    check_schema,
    check_schema_async,
    check_worker_compatibility,
    check_worker_compatibility_async,
)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def test_fresh_install_is_green(pgflow_dsn: str) -> None:
    report = check_schema(pgflow_dsn)

    assert report.errors == [], report.to_text()
    assert report.warnings == [], report.to_text()
    assert report.ok and report.exit_code == 0
    assert report.facts["pgflow_version"] == pgflow.__version__
    assert report.facts["pgflow_install"] == "extension"
    assert report.facts["pgmq_install"] == "extension"
    assert report.to_text().endswith("OK: 0 errors, 0 warnings")
    assert json.loads(report.to_json())["ok"] is True


def test_fresh_install_passes_the_worker_check(pgflow_conn: psycopg.Connection) -> None:
    pgflow_conn.execute("select pgflow.create_flow('greet')")
    check_worker_compatibility(pgflow_conn, ["greet"])


def test_async_check_gives_the_same_report(pgflow_dsn: str) -> None:
    async def run() -> SchemaReport:
        async with await psycopg.AsyncConnection.connect(pgflow_dsn) as conn:
            await check_worker_compatibility_async(conn)
            return await check_schema_async(conn)

    assert asyncio.run(run()) == check_schema(pgflow_dsn)


def test_check_leaves_the_callers_transaction_and_settings_alone(pgflow_dsn: str) -> None:
    with psycopg.connect(pgflow_dsn) as conn:
        conn.execute("set search_path = pgflow, public")
        conn.execute("select pgflow.create_flow('in_tx')")  # opens a transaction

        assert check_schema(conn).ok

        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        assert conn.execute("show search_path").fetchone() == ("pgflow, public",)
        assert conn.execute("select count(*) from flows").fetchone() == (1,)
        conn.rollback()


def test_role_without_privileges_gets_a_report_not_a_crash(pgflow_dsn: str) -> None:
    role = f"pgflow_nobody_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pgflow_dsn, autocommit=True) as admin:
        admin.execute(f"create role {role} login")
        try:
            with psycopg.connect(make_conninfo(pgflow_dsn, user=role)) as conn:
                report = check_schema(conn)
        finally:
            admin.execute(f"drop role {role}")

    assert codes(report.errors) == ["pgflow_version_unknown"]
    assert "no privilege" in report.errors[0].message
    assert report.facts["flows"] is None, "pgflow.flows is not readable"


# ---------------------------------------------------------------- (a) a changed function


def replace_complete_task(conn: psycopg.Connection, arguments: str) -> None:
    """Drop pgflow.complete_task and recreate it with other arguments."""
    conn.execute(
        "alter extension pgflow drop function pgflow.complete_task(uuid, text, int, jsonb, int)"
    )
    conn.execute("drop function pgflow.complete_task(uuid, text, int, jsonb, int)")
    conn.execute(
        f"create function pgflow.complete_task({arguments}) returns setof pgflow.step_tasks "
        "language sql as 'select * from pgflow.step_tasks where false'"
    )


def test_renamed_argument_is_a_signature_mismatch(pgflow_conn: psycopg.Connection) -> None:
    replace_complete_task(
        pgflow_conn,
        "run_id uuid, step_slug text, task_idx int, output jsonb, attempt int default null",
    )

    report = check_schema(pgflow_conn)

    assert codes(report.errors) == ["function_signature_mismatch"]
    error = report.errors[0]
    assert error.details["function"] == "complete_task"
    assert "argument 3 is task_idx integer, expected task_index integer" in error.message
    assert report.exit_code == 1
    text = report.to_text()
    assert "pgflow.complete_task(run_id uuid, step_slug text, task_idx integer" in text
    assert text.endswith("FAILED: 1 error, 0 warnings")
    with pytest.raises(SchemaVersionMismatch, match=r"complete_task.*task_idx"):
        check_worker_compatibility(pgflow_conn)


def test_extra_argument_is_a_signature_mismatch(pgflow_conn: psycopg.Connection) -> None:
    replace_complete_task(
        pgflow_conn,
        "run_id uuid, step_slug text, task_index int, output jsonb, attempt int default null, "
        "worker_id uuid default null",
    )

    report = check_schema(pgflow_conn)

    assert codes(report.errors) == ["function_signature_mismatch"]
    assert "extra argument worker_id uuid DEFAULT NULL" in report.errors[0].message


def test_other_contract_changes_are_errors(pgflow_conn: psycopg.Connection) -> None:
    pgflow_conn.execute("alter table pgflow.flows drop constraint opt_timeout_is_positive")
    pgflow_conn.execute("alter table pgflow.runs alter column remaining_steps set default 1")
    pgflow_conn.execute("alter extension pgflow drop view pgflow.permanently_stalled_tasks")
    pgflow_conn.execute("drop view pgflow.permanently_stalled_tasks")

    report = check_schema(pgflow_conn)

    assert sorted(codes(report.errors)) == [
        "constraint_missing",
        "table_columns_mismatch",
        "view_missing",
    ]
    messages = "\n".join(e.message for e in report.errors)
    assert "opt_timeout_is_positive" in messages
    assert "column remaining_steps has default 1, expected 0" in messages


def test_other_schema_version_is_an_error(pgflow_conn: psycopg.Connection) -> None:
    pgflow_conn.execute("update pgflow.installed_versions set version = '0.0.1'")

    report = check_schema(pgflow_conn)

    assert codes(report.errors) == ["pgflow_version_mismatch"]
    assert report.errors[0].hint == "run `pgflow migrate`"
    with pytest.raises(SchemaVersionMismatch, match=r"pgflow 0\.0\.1 is installed"):
        check_worker_compatibility(pgflow_conn)


def test_database_without_pgflow_is_an_error(empty_db: Callable[[], str]) -> None:
    report = check_schema(empty_db())

    assert codes(report.errors) == ["pgflow_not_installed", "pgmq_not_installed"]
    assert "run `pgflow install`" in report.to_text()


# ---------------------------------------------------------------- (b) an old pgmq


def test_old_pgmq_extension_version_is_an_error(pgflow_conn: psycopg.Connection) -> None:
    # What the catalog of a database with pgmq 1.4.5 says; the extension files stay 1.13.
    pgflow_conn.execute("update pg_extension set extversion = '1.4.5' where extname = 'pgmq'")

    report = check_schema(pgflow_conn)

    assert codes(report.errors) == ["pgmq_version_too_old"]
    assert report.errors[0].message == "pgmq 1.4.5 is installed; pgflow needs >= 1.5"
    with pytest.raises(SchemaVersionMismatch, match=r"pgmq 1\.4\.5"):
        check_worker_compatibility(pgflow_conn)


def pgmq_sql_without_headers() -> str:
    """The bundled pgmq script with message_record as it was before pgmq 1.5 (no headers)."""
    text = (importlib.resources.files("pgmq") / "sql" / "pgmq.sql").read_text()
    before = "    message JSONB,\n    headers JSONB\n);"
    start = text.index("CREATE TYPE pgmq.message_record AS (")
    end = text.index(");", start) + 2
    assert before in text[start:end], "the bundled pgmq changed: update this simulation"
    return text[:start] + text[start:end].replace(before, "    message JSONB\n);") + text[end:]


@pytest.fixture
def old_plain_pgmq_dsn(empty_db: Callable[[], str]) -> Iterator[str]:
    """A database with pgmq installed as plain SQL (no version recorded) whose
    message_record lacks headers, as before pgmq 1.5, and pgflow on top of it."""
    dsn = empty_db()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(pgmq_sql_without_headers().encode())
    pgflow.install(dsn, method="sql")
    yield dsn


def test_plain_sql_pgmq_without_headers_is_an_error(old_plain_pgmq_dsn: str) -> None:
    report = check_schema(old_plain_pgmq_dsn)

    assert codes(report.errors) == ["pgmq_message_record_mismatch"]
    assert "headers is missing" in report.errors[0].message
    assert report.facts["pgmq_install"] == "sql"
    assert report.facts["pgmq_version"] is None
    assert "version not recorded (plain SQL)" in report.to_text()
    with (
        psycopg.connect(old_plain_pgmq_dsn) as conn,
        pytest.raises(SchemaVersionMismatch, match="headers is missing"),
    ):
        check_worker_compatibility(conn)


# ---------------------------------------------------------------- (c) flows and their queues


def test_flow_without_queue_is_an_error(pgflow_conn: psycopg.Connection) -> None:
    pgflow_conn.execute("select pgflow.create_flow('lost_queue')")
    pgflow_conn.execute("select pgflow.create_flow('fine')")
    pgflow_conn.execute("select pgmq.enable_notify_insert('fine')")
    pgflow_conn.execute("select pgmq.drop_queue('lost_queue')")

    report = check_schema(pgflow_conn)

    assert codes(report.errors) == ["flow_queue_missing"]
    assert report.errors[0].details == {"flow_slug": "lost_queue"}
    assert "pgmq.q_lost_queue does not exist" in report.errors[0].message
    assert report.warnings == []
    check_worker_compatibility(pgflow_conn, ["fine"])  # other flows' workers still start
    with pytest.raises(SchemaVersionMismatch, match="lost_queue"):
        check_worker_compatibility(pgflow_conn, ["lost_queue"])


def test_old_flow_with_a_slug_too_long_for_pgmq_is_an_error(
    pgflow_conn: psycopg.Connection,
) -> None:
    slug = "f" * 48  # create_flow refuses it now; older versions wrote the row, then failed
    pgflow_conn.execute("insert into pgflow.flows (flow_slug) values (%s)", (slug,))

    report = check_schema(pgflow_conn)

    assert codes(report.errors) == ["flow_queue_name_too_long"]
    assert "48 characters" in report.errors[0].message


def test_queue_without_notify_trigger_is_a_warning(pgflow_conn: psycopg.Connection) -> None:
    pgflow_conn.execute("select pgflow.create_flow('quiet')")

    report = check_schema(pgflow_conn)

    assert report.ok and report.exit_code == 0
    assert codes(report.warnings) == ["notify_trigger_missing", "notify_throttle_missing"]
    assert "select pgmq.enable_notify_insert('quiet')" in report.to_text()
    check_worker_compatibility(pgflow_conn, ["quiet"])

    pgflow_conn.execute("select pgmq.enable_notify_insert('quiet')")
    assert check_schema(pgflow_conn).warnings == []


def test_notify_trigger_that_is_not_deferrable_is_a_warning(
    pgflow_conn: psycopg.Connection,
) -> None:
    pgflow_conn.execute("select pgflow.create_flow('eager')")
    pgflow_conn.execute("select pgmq.enable_notify_insert('eager')")
    pgflow_conn.execute("drop trigger trigger_notify_queue_insert_listeners on pgmq.q_eager")
    pgflow_conn.execute(
        "create trigger trigger_notify_queue_insert_listeners after insert on pgmq.q_eager "
        "for each row execute function pgmq.notify_queue_listeners()"
    )

    report = check_schema(pgflow_conn)

    assert report.ok
    assert codes(report.warnings) == ["notify_trigger_not_deferrable"]


# ---------------------------------------------------------------- pg_cron


@pytest.fixture
def cron_conn(pg_cron_dsn: str) -> Iterator[psycopg.Connection]:
    """A transaction in the pg_cron database with pgmq + pgflow installed, rolled back."""
    with psycopg.connect(pg_cron_dsn, autocommit=False) as conn:
        try:
            conn.execute("create extension if not exists pgmq")
            conn.execute("create extension pgflow")
            yield conn
        finally:
            conn.rollback()


def test_pg_cron_without_the_stalled_task_job_is_a_warning(
    cron_conn: psycopg.Connection,
) -> None:
    report = check_schema(cron_conn)

    assert report.ok
    assert codes(report.warnings) == ["cron_job_missing"]
    assert "pgflow_tick" in report.warnings[0].message
    assert "every --tick-interval seconds, 5 by default" in report.warnings[0].message
    assert report.warnings[0].hint == "select pgflow.setup_tick_cron()"
    assert report.facts["pg_cron_version"]

    cron_conn.execute("select pgflow.setup_tick_cron('* * * * *')")
    assert check_schema(cron_conn).warnings == []


def test_the_older_requeue_only_cron_job_also_counts(cron_conn: psycopg.Connection) -> None:
    cron_conn.execute("select pgflow.setup_requeue_stalled_tasks_cron('* * * * *')")
    assert check_schema(cron_conn).warnings == []


def test_no_cron_warning_without_pg_cron(pgflow_dsn: str) -> None:
    report = check_schema(pgflow_dsn)
    assert report.facts["pg_cron_version"] is None
    assert "cron_job_missing" not in codes(report.warnings)

"""pgflow.setup_requeue_stalled_tasks_cron on the pg_cron of this machine (1.4, minute
schedules only) and without pg_cron. The schedule itself is covered by
sql_tests/setup_requeue_stalled_tasks_cron/; here we check what pgTAP cannot see: the NOTICE
that announces the fallback to every minute, and the error in a database without pg_cron.

pg_cron can only be created in the database named by cron.database_name (``pg_cron_dsn``),
so pgmq and pgflow are installed there inside a transaction that is rolled back at the end.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

JOB = "pgflow_requeue_stalled_tasks"


@pytest.fixture
def cron_tx(pg_cron_dsn: str) -> Iterator[tuple[psycopg.Connection, list[str]]]:
    """A transaction in the pg_cron database with pgmq + pgflow installed (rolled back),
    and the list that collects the NOTICE messages sent to it."""
    notices: list[str] = []
    with psycopg.connect(pg_cron_dsn, autocommit=False) as conn:
        conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
        try:
            conn.execute("create extension if not exists pgmq")
            conn.execute("create extension pgflow")
            notices.clear()
            yield conn, notices
        finally:
            conn.rollback()


def job_schedule(conn: psycopg.Connection) -> list[str]:
    return [r[0] for r in conn.execute("select schedule from cron.job where jobname = %s", (JOB,))]


def test_seconds_interval_falls_back_to_every_minute_with_a_notice(
    cron_tx: tuple[psycopg.Connection, list[str]],
) -> None:
    conn, notices = cron_tx
    version = conn.execute(
        "select extversion from pg_extension where extname = 'pg_cron'"
    ).fetchone()
    assert version is not None
    major_minor = tuple(int(p) for p in version[0].split("-")[0].split(".")[:2])
    if major_minor >= (1, 5):
        pytest.skip(f"pg_cron {version[0]} has second-based schedules: no fallback")
    row = conn.execute("select pgflow.setup_requeue_stalled_tasks_cron()").fetchone()
    assert row is not None and row[0], "returns a non-empty text"
    assert job_schedule(conn) == ["* * * * *"]
    assert any("minute" in n.lower() or "* * * * *" in n for n in notices), (
        f"no NOTICE announces the fallback to every minute: {notices}"
    )


def test_minute_cron_expression_is_used_without_fallback_notice(
    cron_tx: tuple[psycopg.Connection, list[str]],
) -> None:
    conn, notices = cron_tx
    conn.execute("select pgflow.setup_requeue_stalled_tasks_cron('*/5 * * * *')")
    assert job_schedule(conn) == ["*/5 * * * *"]
    assert not any("second" in n.lower() for n in notices), f"unexpected fallback: {notices}"


def test_without_pg_cron_raises_an_error_naming_pg_cron(pgflow_conn: psycopg.Connection) -> None:
    installed = pgflow_conn.execute("select 1 from pg_extension where extname = 'pg_cron'")
    assert installed.fetchone() is None, "precondition: no pg_cron in the per-test database"
    with pytest.raises(psycopg.Error, match="pg_cron"):
        pgflow_conn.execute("select pgflow.setup_requeue_stalled_tasks_cron()")

"""Installing as a role that may not create roles (managed PostgreSQL): the install
works, says what is missing, and ``pgflow.setup_security()`` grants once the roles exist.

Roles are cluster-wide and the session cluster already has them, so this test starts a
cluster of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo
from pytest_postgresql import factories
from pytest_postgresql.executors import PostgreSQLExecutor

import pgflow

ROOT = Path(__file__).resolve().parents[2]

bare_cluster = factories.postgresql_proc(
    executable=str(ROOT / "tools" / "pg_ctl_as_postgres.sh"),
    port=None,
    dbname="bare",
    postgres_options="-c fsync=off -c synchronous_commit=off -c full_page_writes=off",
)


def scalar(dsn: str, query: str) -> Any:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(query).fetchone()
    return None if row is None else row[0]


def test_install_without_createrole_works_and_setup_security_grants_later(
    bare_cluster: PostgreSQLExecutor,
) -> None:
    admin = make_conninfo(
        host=bare_cluster.host, port=bare_cluster.port, user=bare_cluster.user, dbname="postgres"
    )
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("create role installer login")  # neither superuser nor CREATEROLE
        conn.execute("create database managed owner installer")
    dsn = make_conninfo(admin, dbname="managed", user="installer")

    notices: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
        report = pgflow.install(conn, method="sql")

    assert (report.pgmq, report.pgflow, report.pgflow_version) == ("sql", "sql", pgflow.__version__)
    assert report.missing_roles == (
        "pgflow_worker",
        "pgflow_client",
        "pgflow_operator",
        "pgflow_upstream_worker",
    )
    assert "select pgflow.setup_security()" in str(report)
    missing = [n for n in notices if "may not create it" in n]
    assert [m.split(" does not exist")[0] for m in missing] == [
        "pgflow: role pgflow_worker",
        "pgflow: role pgflow_client",
        "pgflow: role pgflow_operator",
        "pgflow: role pgflow_upstream_worker",
    ], notices
    assert scalar(dsn, "select to_regrole('pgflow_worker')") is None
    assert scalar(dsn, "select has_schema_privilege('public', 'pgflow', 'usage')") is False
    assert scalar(dsn, "select pgflow.create_flow('works')") is not None  # the owner works

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("create role pgflow_worker nologin")
        conn.execute("create role pgflow_client nologin")
        conn.execute("create role pgflow_operator nologin")
        conn.execute("create role pgflow_upstream_worker nologin")
    granted = scalar(dsn, "select pgflow.setup_security()")

    assert granted == [
        "pgflow_worker",
        "pgflow_client",
        "pgflow_operator",
        "pgflow_upstream_worker",
    ]
    assert scalar(
        dsn,
        "select has_function_privilege('pgflow_worker',"
        " 'pgflow.read_tasks(text, int, int)', 'execute')"
        " and has_function_privilege('pgflow_client',"
        " 'pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz)', 'execute')"
        " and not has_function_privilege('pgflow_client',"
        " 'pgflow.complete_task(uuid, text, int, jsonb, int)', 'execute')",
    )

"""An upgrade or an adoption run by a superuser on a schema another role owns: every object
ends up owned by the schema's owner, so its SECURITY DEFINER functions can still call the
new helpers (before the fix, `start_flow` raised "permission denied for function
_max_payload_bytes" for every caller after `pgflow migrate` as postgres).
"""

from __future__ import annotations

import importlib.resources
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

import pgflow
from pgflow.schema.migrate import migrate
from tests.integration.upstream_fixture import strip_to_upstream


@pytest.fixture
def owned_db(pg_admin_dsn: str) -> Iterator[tuple[str, str]]:
    """A database owned by a fresh non-superuser role: (its DSN, the superuser's DSN)."""
    role = f"pgflow_owner_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL("create database {} owner {}").format(*map(sql.Identifier, (role, role)))
        )
    yield (
        make_conninfo(pg_admin_dsn, dbname=role, user=role),
        make_conninfo(pg_admin_dsn, dbname=role),
    )
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database {} with (force)").format(sql.Identifier(role)))
        conn.execute(sql.SQL("drop owned by {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


def start_and_count(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select pgflow.start_flow('owned', '{}')")
        conn.execute("select pgflow.create_flow('created_after')")
        row = conn.execute("select count(*) from pgflow.runs").fetchone()
    assert row is not None
    return int(row[0])


def foreign_owned(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "select p.oid::regprocedure::text from pg_proc as p join pg_namespace as n "
            "on n.oid = p.pronamespace where n.nspname = 'pgflow' and p.proowner <> n.nspowner "
            "union all select c.oid::regclass::text from pg_class as c join pg_namespace as n "
            "on n.oid = c.relnamespace where n.nspname = 'pgflow' and c.relowner <> n.nspowner"
        ).fetchall()
    return [r[0] for r in rows]


def test_migrate_as_a_superuser_keeps_the_owner_s_functions_working(owned_db):
    owner, superuser = owned_db
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute((importlib.resources.files("pgmq") / "sql" / "pgmq.sql").read_text())
        conn.execute(
            (importlib.resources.files("pgflow") / "sql" / "pgflow--0.1.0.sql").read_text()
        )
        conn.execute("select pgflow.create_flow('owned'); select pgflow.add_step('owned', 'a')")

    migrate(superuser)

    assert foreign_owned(owner) == []
    assert start_and_count(owner) == 1
    assert start_and_count(superuser) == 2


def test_adopting_as_a_superuser_keeps_the_owner_s_functions_working(owned_db):
    owner, superuser = owned_db
    pgflow.install(owner, method="sql")
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute("select pgflow.create_flow('owned'); select pgflow.add_step('owned', 'a')")
    strip_to_upstream(owner)

    assert pgflow.install(superuser).pgflow == "adopted"

    assert foreign_owned(owner) == []
    assert start_and_count(owner) == 1

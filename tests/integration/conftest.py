"""Fixtures of the integration tests: ``login_role`` (login roles for privilege tests).

Roles are cluster-wide, so each test creates login roles with unique names and drops them
afterwards (terminating their sessions first).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

LoginRole = Callable[..., str]


@pytest.fixture
def login_role(pgflow_dsn: str, pg_admin_dsn: str) -> Iterator[LoginRole]:
    """Factory: ``login_role("pgflow_worker")`` creates a LOGIN role that is a member of
    the given group roles (none: a plain role) and returns a DSN of the test database
    connecting as it."""
    created: list[str] = []

    def make(*groups: str) -> str:
        name = f"pgflow_test_{uuid.uuid4().hex[:12]}"
        statement = sql.SQL("create role {} login").format(sql.Identifier(name))
        if groups:
            statement += sql.SQL(" in role {}").format(
                sql.SQL(", ").join(sql.Identifier(g) for g in groups)
            )
        with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
            conn.execute(statement)
        created.append(name)
        return make_conninfo(pgflow_dsn, user=name)

    yield make
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        for name in created:
            conn.execute(
                "select pg_terminate_backend(pid) from pg_stat_activity where usename = %s",
                (name,),
            )
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))

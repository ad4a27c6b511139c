"""pgflow.testing on PGFLOW_TEST_DSN: a database per test, the test clock on, no leftovers."""

from __future__ import annotations

import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pgflow.testing.server import TestServer


def _databases(admin: str, like: str) -> list[str]:
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute(
            "select datname from pg_database where datname like %s order by 1", (like,)
        ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize("superuser", [True, False], ids=["superuser", "createdb-only role"])
def test_each_database_has_the_test_clock_on_and_none_is_left_behind(
    pg_admin_dsn: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, superuser: bool
) -> None:
    role = f"plugin_user_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute(f"create role {role} login createdb {'superuser' if superuser else ''}")
    monkeypatch.setenv("PGFLOW_TEST_DSN", make_conninfo(pg_admin_dsn, user=role))
    server = TestServer.start(tmp_path)
    try:
        dsn = server.new_database()
        with psycopg.connect(dsn, autocommit=True) as conn:
            assert conn.execute("select current_setting('pgflow.test_clock')").fetchone() == ("on",)
            moved = conn.execute(
                "select pgflow.advance_clock(3600) - now() >= interval '1 hour'"
            ).fetchone()
            assert moved == (True,)
        assert _databases(pg_admin_dsn, f"{server.template}%") == [server.template]
        server.drop_database(dsn)
    finally:
        server.stop()
    tag = server.template.rsplit("_", 1)[1]
    assert _databases(pg_admin_dsn, f"pgflow_test_%{tag}%") == []
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute(f"drop role {role}")

"""pgflow.testing on PGFLOW_TEST_DSN: a database per test, the test clock on, no leftovers."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pgflow.testing.server import TestServer


@contextmanager
def _login_role(admin: str, monkeypatch: pytest.MonkeyPatch, superuser: bool) -> Iterator[str]:
    """A new login role that may create databases, named by PGFLOW_TEST_DSN; dropped after."""
    role = f"plugin_user_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"create role {role} login createdb {'superuser' if superuser else ''}")
    monkeypatch.setenv("PGFLOW_TEST_DSN", make_conninfo(admin, user=role))
    yield role
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"drop role {role}")


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
    with _login_role(pg_admin_dsn, monkeypatch, superuser):
        server = TestServer.start(tmp_path)
        try:
            dsn = server.new_database()
            with psycopg.connect(dsn, autocommit=True) as conn:
                setting = conn.execute("select current_setting('pgflow.test_clock')").fetchone()
                assert setting == ("on",)
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


def _await_autovacuum(admin: str, dbname: str, table: str) -> None:
    """Wait (at most 60 s of polling) until an autovacuum worker vacuums ``table`` in ``dbname``."""
    with psycopg.connect(admin, autocommit=True) as conn:
        for _ in range(600):
            seen = conn.execute(
                "select count(*) from pg_stat_activity where datname = %s"
                " and backend_type = 'autovacuum worker' and query like %s",
                (dbname, f"%{table}%"),
            ).fetchone()
            if seen and seen[0]:
                return
            conn.execute("select pg_sleep(0.1)")
    pytest.fail(f"no autovacuum worker came to {dbname}.{table} within 60 s")


def test_a_createdb_only_role_copies_and_drops_the_template_while_autovacuum_visits_it(
    pg_admin_dsn: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An autovacuum worker has no role: only a superuser may signal it.

    The janitor used to end every session of the template before copying or dropping it, and
    failed with "must be a superuser to terminate superuser process" for a role that may only
    create databases when autovacuum happened to be there. Here a worker is held in the
    template (a table it vacuums at one page per 100 ms) while the copy and the drop run.
    """
    with _login_role(pg_admin_dsn, monkeypatch, superuser=False):
        server = TestServer.start(tmp_path)
        try:
            with psycopg.connect(make_conninfo(pg_admin_dsn, dbname=server.template)) as conn:
                conn.execute(
                    "create table slow_vacuum (filler text) with (autovacuum_vacuum_threshold = 0,"
                    " autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_cost_delay = 100,"
                    " autovacuum_vacuum_cost_limit = 1, autovacuum_analyze_threshold = 1000000000)"
                )
                conn.execute(
                    "insert into slow_vacuum select repeat('x', 200) from generate_series(1, 20000)"
                )
                conn.commit()
                conn.execute("delete from slow_vacuum")
            with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
                conn.execute("alter system set autovacuum_naptime = 1")
                conn.execute("select pg_reload_conf()")
            try:
                _await_autovacuum(pg_admin_dsn, server.template, "slow_vacuum")
                dsn = server.new_database()
                _await_autovacuum(pg_admin_dsn, server.template, "slow_vacuum")
            finally:
                with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
                    conn.execute("alter system reset autovacuum_naptime")
                    conn.execute("select pg_reload_conf()")
            server.drop_database(dsn)
        finally:
            server.stop()
        assert _databases(pg_admin_dsn, f"{server.template}%") == []

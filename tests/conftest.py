"""Database fixtures: one private PostgreSQL cluster per session, a fresh database per test.

- Cluster: started by pytest-postgresql through ``tools/pg_ctl_as_postgres.sh`` (so it also
  runs as root), with ``fsync=off`` and pg_cron preloaded.
- pg_cron lives in its own database, ``pgflow_cron`` (``cron.database_name``): pg_cron can
  only be created there, and its background worker stays connected to it, which would stop
  that database from serving as a template for ``CREATE DATABASE``. Cron tests schedule
  from there (``cron.schedule_in_database``), through the ``pg_cron_dsn`` fixture.
- Template ``pgflow_test_tmpl``: pgmq and pgflow installed by ``pgflow.install`` with
  ``method="extension"``, so the server's extension files must match the package SQL
  (``make install-extension``; checked before the cluster is used).
- Each test that asks for ``pgflow_dsn`` or ``pgflow_conn`` gets its own database cloned
  from the template, dropped afterwards.

Fixtures: ``pg_admin_dsn`` (the cluster's ``postgres`` database, for creating more
databases), ``pgflow_dsn`` (fresh database with pgmq + pgflow), ``pgflow_conn`` (autocommit
psycopg connection to it), ``pg_cron_dsn``.
"""

from __future__ import annotations

import importlib.resources
import itertools
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from pytest_postgresql import factories
from pytest_postgresql.executors import PostgreSQLExecutor
from pytest_postgresql.janitor import DatabaseJanitor

import pgflow

# Fixtures for tests that run real worker processes (start_worker).
pytest_plugins = ["tests.integration.worker_harness"]

ROOT = Path(__file__).resolve().parent.parent
CRON_DB = "pgflow_cron"
_db_numbers = itertools.count(1)


def _check_extension_files() -> None:
    """Fail fast when the server's pgflow extension script differs from the package SQL."""
    sharedir = subprocess.run(
        ["pg_config", "--sharedir"], check=True, capture_output=True, text=True
    ).stdout.strip()
    name = f"pgflow--{pgflow.__version__}.sql"
    installed = Path(sharedir) / "extension" / name
    packaged = (importlib.resources.files("pgflow") / "sql" / name).read_text()
    if not installed.exists() or installed.read_text().split("\n", 1)[1] != packaged:
        raise RuntimeError(
            f"{installed} is missing or older than the package SQL: run `make install-extension`"
        )


def _prepare_cluster(host: str, port: int, user: str, dbname: str, **_: object) -> None:
    """pytest-postgresql loader: create the pg_cron database, then fill the template."""
    _check_extension_files()
    admin = make_conninfo(host=host, port=port, user=user, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'create database "{CRON_DB}"')
    cron = make_conninfo(host=host, port=port, user=user, dbname=CRON_DB)
    with psycopg.connect(cron, autocommit=True) as conn:
        conn.execute("create extension pg_cron")
    template = make_conninfo(host=host, port=port, user=user, dbname=dbname)
    pgflow.install(template, method="extension")


pgflow_cluster = factories.postgresql_proc(
    executable=str(ROOT / "tools" / "pg_ctl_as_postgres.sh"),
    port=None,
    dbname="pgflow_test",
    postgres_options=(
        f"-c shared_preload_libraries=pg_cron -c cron.database_name={CRON_DB} "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    ),
    load=[_prepare_cluster],
)


def _dsn(cluster: PostgreSQLExecutor, dbname: str) -> str:
    return make_conninfo(host=cluster.host, port=cluster.port, user=cluster.user, dbname=dbname)


@pytest.fixture(scope="session")
def pg_admin_dsn(pgflow_cluster: PostgreSQLExecutor) -> str:
    """DSN of the cluster's ``postgres`` database (superuser), to create extra databases."""
    return _dsn(pgflow_cluster, "postgres")


@pytest.fixture(scope="session")
def pg_cron_dsn(pgflow_cluster: PostgreSQLExecutor) -> str:
    """DSN of the database holding the pg_cron extension (``cron.database_name``)."""
    return _dsn(pgflow_cluster, CRON_DB)


@pytest.fixture
def pgflow_dsn(pgflow_cluster: PostgreSQLExecutor) -> Iterator[str]:
    """DSN of a fresh database, cloned from the template, with pgmq and pgflow installed."""
    dbname = f"pgflow_t{next(_db_numbers)}"
    janitor = DatabaseJanitor(
        user=pgflow_cluster.user,
        host=pgflow_cluster.host,
        port=pgflow_cluster.port,
        dbname=dbname,
        template_dbname=pgflow_cluster.template_dbname,
    )
    with janitor:
        yield _dsn(pgflow_cluster, dbname)


@pytest.fixture
def pgflow_conn(pgflow_dsn: str) -> Iterator[psycopg.Connection]:
    """Autocommit psycopg connection to the test's fresh pgflow database."""
    with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
        yield conn


_empty_numbers = itertools.count(1)


@pytest.fixture
def empty_db(pg_admin_dsn: str) -> Iterator[Callable[[], str]]:
    """Factory of empty databases (no pgmq, no pgflow); all are dropped afterwards."""
    created: list[str] = []

    def make() -> str:
        name = f"pgflow_empty_{next(_empty_numbers)}"
        with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
            conn.execute(f'create database "{name}" template template0')
        created.append(name)
        return make_conninfo(pg_admin_dsn, dbname=name)

    yield make
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        for name in created:
            conn.execute(f'drop database if exists "{name}" with (force)')


@pytest.fixture(autouse=True)
def _no_dev_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test falls back to the embedded dev cluster unless it asks for one itself."""
    monkeypatch.setenv("PGFLOW_DEV_CLUSTER", "off")

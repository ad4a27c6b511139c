"""Database fixtures: one private PostgreSQL cluster per session, a fresh database per test.

- Cluster: started with pytest-postgresql's executor through ``tools/pg_ctl_as_postgres.sh``
  (so it also runs as root), with ``fsync=off`` and pg_cron preloaded.
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

Robustness on a shared machine:

- Base temp: each session gets its own fresh ``pgflow-pytest-*`` directory under the
  system temp dir (unless ``--basetemp`` is given), never the shared
  ``/tmp/pytest-of-<user>``: another pytest run on the machine re-creates that one private
  (0700) and prunes its old entries, which took the cluster's files away from the postgres
  OS user (``PANIC: could not open file ... pg_control: Permission denied``). It is removed
  after a passing run and kept (the header names it) after a failing one.
- A dead cluster stops the suite: every test that uses the cluster first (and afterwards)
  checks that its postmaster still runs; if not, that test errors with the last lines of
  the server log and the session stops (tests/cluster_health.py). Connections time out
  after ``PGCONNECT_TIMEOUT`` seconds (10 unless set) instead of waiting forever.
"""

from __future__ import annotations

import importlib.resources
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from pytest_postgresql.executors import PostgreSQLExecutor
from pytest_postgresql.janitor import DatabaseJanitor

import pgflow
from pgflow.testing.server import enable_test_clock
from tests.cluster_health import ClusterDied, check_running, postmaster_pid

# Fixtures for tests that run real worker processes (start_worker); pytester runs the
# pgflow.testing plugin in a pytest of its own (the README example, a user's project).
pytest_plugins = ["tests.integration.worker_harness", "pytester"]

ROOT = Path(__file__).resolve().parent.parent
CRON_DB = "pgflow_cron"
_db_numbers = itertools.count(1)
# Inherited by every libpq and psycopg connection, also in worker subprocesses.
os.environ.setdefault("PGCONNECT_TIMEOUT", "10")
_OWN_BASETEMP = pytest.StashKey[Path]()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Give the session a fresh base temp of its own (before pytest's tmpdir plugin reads it).

    The directory is traversable by the postgres OS user, which runs the cluster when we are
    root (tools/pg_ctl_as_postgres.sh opens up the path below it).
    """
    if config.option.basetemp is not None:
        return
    own = Path(tempfile.mkdtemp(prefix="pgflow-pytest-"))
    own.chmod(0o711)
    config.stash[_OWN_BASETEMP] = own
    config.option.basetemp = str(own / "tmp")


def pytest_report_header(config: pytest.Config) -> str | None:
    own = config.stash.get(_OWN_BASETEMP, None)
    return None if own is None else f"basetemp: {own}/tmp (removed after a passing run)"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    own = session.config.stash.get(_OWN_BASETEMP, None)
    if own is not None and exitstatus == 0:
        shutil.rmtree(own, ignore_errors=True)


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


def _prepare_cluster(host: str, port: int, user: str, dbname: str) -> None:
    """Create the pg_cron database, then install pgmq and pgflow into the template."""
    _check_extension_files()
    admin = make_conninfo(host=host, port=port, user=user, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'create database "{CRON_DB}"')
    cron = make_conninfo(host=host, port=port, user=user, dbname=CRON_DB)
    with psycopg.connect(cron, autocommit=True) as conn:
        conn.execute("create extension pg_cron")
    template = make_conninfo(host=host, port=port, user=user, dbname=dbname)
    pgflow.install(template, method="extension")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def pgflow_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgreSQLExecutor]:
    """The session's PostgreSQL cluster, with the template database ``pgflow_test_tmpl``.

    pytest-postgresql's executor (pg_ctl through tools/pg_ctl_as_postgres.sh); torn down
    without waiting on a server that is gone (``_cluster_alive`` has said so already).
    """
    base = tmp_path_factory.mktemp("pgflow-cluster")
    cluster = PostgreSQLExecutor(
        executable=str(ROOT / "tools" / "pg_ctl_as_postgres.sh"),
        host="127.0.0.1",
        port=_free_port(),
        datadir=str(base / "data"),
        unixsocketdir=tempfile.gettempdir(),
        logfile=str(base / "server.log"),
        startparams="-w",
        dbname="pgflow_test",
        postgres_options=(
            f"-c shared_preload_libraries=pg_cron -c cron.database_name={CRON_DB} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        ),
    )
    cluster.start()
    try:
        DatabaseJanitor(
            user=cluster.user,
            host=cluster.host,
            port=cluster.port,
            dbname=cluster.template_dbname,
            as_template=True,
        ).init()
        _prepare_cluster(cluster.host, cluster.port, cluster.user, cluster.template_dbname)
        yield cluster
    finally:
        if postmaster_pid(cluster.datadir) is not None:
            cluster.stop()
        else:
            cluster.kill()  # the server is gone: only the executor's own leftovers


@pytest.fixture(autouse=True)
def _cluster_alive(request: pytest.FixtureRequest) -> Iterator[None]:
    """Before and after each test that uses the cluster: its postmaster still runs.

    When it does not, the test errors with the end of the server log and the session stops
    after it (the tests left would only fail one by one, or wait on a dead server).
    """
    if "pgflow_cluster" not in request.fixturenames:
        yield
        return
    cluster: PostgreSQLExecutor = request.getfixturevalue("pgflow_cluster")
    _require_running(request, cluster)
    yield
    _require_running(request, cluster)


def _require_running(request: pytest.FixtureRequest, cluster: PostgreSQLExecutor) -> None:
    try:
        check_running(cluster.datadir, cluster.logfile)
    except ClusterDied as exc:
        request.session.shouldfail = "the test cluster died (see the error above)"
        pytest.fail(str(exc), pytrace=False)


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
        connection_timeout=10,
    )
    janitor.init()
    # As pgflow.testing does for its databases: pgflow._now() follows pgflow.advance_clock.
    enable_test_clock(_dsn(pgflow_cluster, "postgres"), dbname)
    yield _dsn(pgflow_cluster, dbname)
    if postmaster_pid(pgflow_cluster.datadir) is not None:  # else _cluster_alive reports it
        janitor.drop()


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

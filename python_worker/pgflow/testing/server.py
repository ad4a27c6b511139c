"""The PostgreSQL server of a test session, and a fresh pgflow database per test.

Either an existing server named by :data:`ENV_DSN` (a role that may create databases), or a
throwaway cluster started in the session's temp folder with the code of ``pgflow dev``
(which also runs as root: the server then runs as the ``postgres`` OS user), stopped and
deleted at the end. On it, one template database gets pgmq and pgflow (plain SQL, so the
server needs no extension files); each test gets a copy, created and dropped by
pytest-postgresql's :class:`~pytest_postgresql.janitor.DatabaseJanitor`.
"""

from __future__ import annotations

import functools
import getpass
import itertools
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from pgflow.schema.install import install

#: Environment variable: DSN of an existing server to test on (its database is only used
#: to create and drop the test databases); unset: a throwaway cluster.
ENV_DSN: Final = "PGFLOW_TEST_DSN"


@dataclass(frozen=True)
class _Cluster:
    home: Path
    data_dir: Path
    base_dir: Path


class TestServer:
    """A server with a pgflow template database; makes and drops per-test databases.

    Use :meth:`start`; stop with :meth:`stop` (drops the template, stops a cluster it started).
    """

    __test__ = False  # not a test class, despite its name

    def __init__(self, admin_dsn: str, cluster: _Cluster | None) -> None:
        self.admin_dsn = admin_dsn
        self._cluster = cluster
        params = conninfo_to_dict(admin_dsn)
        self._params = params
        tag = uuid.uuid4().hex[:8]
        self.template = f"pgflow_test_tmpl_{tag}"
        self._names = (f"pgflow_test_{tag}_{n}" for n in itertools.count(1))

    @classmethod
    def start(cls, base_dir: Path) -> TestServer:
        """Use the server of :data:`ENV_DSN`, else start a cluster under ``base_dir``.

        Then create the template database with pgmq and pgflow installed.

        Raises:
            pgflow.errors.DevClusterError: no PostgreSQL server binaries to start a cluster
                (install them, or set PGFLOW_TEST_DSN).
            pgflow.errors.InstallError: the install failed.
        """
        dsn = os.environ.get(ENV_DSN)
        server = cls(dsn, None) if dsn else cls._throwaway(base_dir)
        try:
            server._create_template()
        except BaseException:
            server.stop()
            raise
        return server

    @classmethod
    def _throwaway(cls, base_dir: Path) -> TestServer:
        from pgflow.dev import server as dev_server

        home = base_dir / "pgflow-test-cluster"
        home.mkdir(parents=True, exist_ok=True)
        quiet = lambda _line: None  # noqa: E731
        state = dev_server.init_cluster(home, quiet)
        with (state.data_dir / "postgresql.conf").open("a") as conf:
            # A test cluster: speed over durability, and no pg_cron launcher (tests that
            # need pg_cron bring a server of their own through PGFLOW_TEST_DSN).
            conf.write("fsync = off\nfull_page_writes = off\nshared_preload_libraries = ''\n")
        cluster = _Cluster(home=home, data_dir=state.data_dir, base_dir=state.base_dir)
        try:
            state = dev_server.start(home, state, quiet)
        except BaseException:
            shutil.rmtree(state.base_dir, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            raise
        dsn = make_conninfo(
            host="127.0.0.1", port=state.port, user=dev_server.ROLE, dbname="postgres"
        )
        return cls(dsn, cluster)

    def dsn(self, dbname: str) -> str:
        """The DSN of database ``dbname`` on this server."""
        return make_conninfo(self.admin_dsn, dbname=dbname)

    def _janitor(self, dbname: str, **options: Any) -> Any:
        params = {key: str(value) for key, value in self._params.items() if value is not None}
        return _janitor_class()(
            user=params.get("user") or os.environ.get("PGUSER") or getpass.getuser(),
            host=params.get("host") or os.environ.get("PGHOST") or "localhost",
            port=params.get("port") or os.environ.get("PGPORT") or 5432,
            password=params.get("password") or os.environ.get("PGPASSWORD"),
            dbname=dbname,
            maintenance_dbname=params.get("dbname") or "postgres",
            **options,
        )

    def _create_template(self) -> None:
        self._janitor(self.template, as_template=True).init()
        install(self.dsn(self.template), method="sql")

    def new_database(self) -> str:
        """Create a copy of the template with the test clock on; return its DSN.

        The clock is turned on for the database (``ALTER DATABASE``) when the role may, else
        (PostgreSQL refuses a role that is not superuser and was not granted ``SET ON
        PARAMETER pgflow.test_clock``) by the DSN itself: ``options=-c pgflow.test_clock=on``
        on every connection made with it. A database whose setup failed is dropped.
        """
        name = next(self._names)
        self._janitor(name, template_dbname=self.template).init()
        dsn = self.dsn(name)
        try:
            enable_test_clock(self.admin_dsn, name)
        except psycopg.errors.InsufficientPrivilege:
            options = conninfo_to_dict(dsn).get("options")
            return make_conninfo(dsn, options=f"{options or ''} -c pgflow.test_clock=on".strip())
        except BaseException:
            self.drop_database(dsn)
            raise
        return dsn

    def drop_database(self, dsn: str) -> None:
        """Drop a database made by :meth:`new_database` (its sessions are ended first)."""
        self._janitor(str(conninfo_to_dict(dsn)["dbname"])).drop()

    def stop(self) -> None:
        """Drop the template; stop and delete a cluster this server started."""
        cluster = self._cluster
        if cluster is None:
            self._janitor(self.template, as_template=True).drop()
            return
        from pgflow.dev import server as dev_server

        try:
            dev_server.stop(cluster.data_dir)
        finally:
            shutil.rmtree(cluster.base_dir, ignore_errors=True)
            shutil.rmtree(cluster.home, ignore_errors=True)


@functools.cache
def _janitor_class() -> Any:
    """pytest-postgresql's janitor, ending only client sessions before a create or drop.

    The janitor ends every session of the database with ``pg_terminate_backend``. An
    autovacuum worker visiting the template has no role, and PostgreSQL lets only a superuser
    signal such a process: for a role that may only create databases, the drop then failed
    with "must be a superuser to terminate superuser process", depending on when autovacuum
    came by. ``CREATE DATABASE`` and ``DROP DATABASE`` stop autovacuum workers themselves, so
    only client sessions are ended here. The class is made once (pytest-postgresql is
    imported only when a janitor is needed).
    """
    from psycopg import Cursor
    from pytest_postgresql.janitor import DatabaseJanitor

    class _ClientSessionJanitor(DatabaseJanitor):
        @staticmethod
        def _terminate_connection(cur: Cursor[Any], dbname: str) -> None:
            cur.execute(
                "select pg_terminate_backend(pid) from pg_stat_activity"
                " where datname = %s and backend_type = 'client backend'",
                (dbname,),
            )

    return _ClientSessionJanitor


def enable_test_clock(admin_dsn: str, dbname: str) -> None:
    """Turn the test clock on for every later session of database ``dbname``.

    ``ALTER DATABASE ... SET pgflow.test_clock = on``: ``pgflow._now()`` then reads the
    offset ``pgflow.advance_clock`` moves (and ``advance_clock`` is allowed). Sessions
    opened before keep the database clock, so call it before connecting.
    """
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(
            sql.SQL("alter database {} set pgflow.test_clock = on").format(sql.Identifier(dbname))
        )

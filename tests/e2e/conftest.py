"""Fixtures of the fault suite: a throwaway PostgreSQL cluster that tests may restart, and
PgBouncer in transaction mode in front of the session cluster.

The session cluster (tests/conftest.py) serves every other test through pytest-postgresql:
restarting it would break their fixtures, so tests that restart PostgreSQL get their own
cluster here (initdb and the server run as the ``postgres`` OS user when we are root, as
tools/throwaway_cluster.sh does).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import pgflow

IS_ROOT = os.geteuid() == 0


def as_postgres(argv: list[str]) -> list[str]:
    """Prefix a command so it runs as the postgres OS user when we are root."""
    return ["runuser", "-u", "postgres", "--", *argv] if IS_ROOT else argv


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pg_bin(name: str) -> str:
    bindir = subprocess.run(
        ["pg_config", "--bindir"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return str(Path(bindir) / name)


def wait_connectable(dsn: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(dsn, connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class ThrowawayCluster:
    """A private PostgreSQL cluster in a temporary directory, for one test module."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pgflow-e2e-cluster."))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.port = free_port()
        if IS_ROOT:
            shutil.chown(self.dir, "postgres")
        self.dir.chmod(0o755)
        self._run(pg_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"port = {self.port}\n"
                "listen_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.dir}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 100\n"
            )
        self.pg_ctl("start")

    def _run(self, *argv: str) -> None:
        subprocess.run(as_postgres(list(argv)), check=True, cwd="/", capture_output=True)

    def pg_ctl(self, action: str, *options: str) -> None:
        """Run ``pg_ctl ACTION`` on this cluster and wait for it to finish."""
        self._run(
            pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", action, *options
        )

    def restart(self, mode: str = "fast") -> None:
        """``pg_ctl restart -m MODE``: every connection is closed, then the server is back."""
        self.pg_ctl("restart", "-m", mode)

    def dsn(self, dbname: str = "postgres") -> str:
        return make_conninfo(host="127.0.0.1", port=self.port, user="postgres", dbname=dbname)

    def create_pgflow_database(self, dbname: str) -> str:
        """Create a database with pgmq and pgflow installed; return its DSN.

        Installed as plain SQL from this package, so it never depends on which extension
        files the server's share directory holds.
        """
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'create database "{dbname}"')
        dsn = self.dsn(dbname)
        pgflow.install(dsn, method="sql")
        return dsn

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.pg_ctl("stop", "-m", "immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def throwaway_cluster() -> Iterator[ThrowawayCluster]:
    """A cluster of this test module's own, which its tests may restart or stop."""
    cluster = ThrowawayCluster()
    try:
        yield cluster
    finally:
        cluster.destroy()


class PgBouncer:
    """A ``pgbouncer`` process in transaction pooling mode in front of one server."""

    def __init__(self, server_host: str, server_port: int) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pgflow-e2e-pgbouncer."))
        self.port = free_port()
        (self.dir / "users.txt").write_text('"postgres" ""\n')
        ini = self.dir / "pgbouncer.ini"
        ini.write_text(
            "[databases]\n"
            f"* = host={server_host} port={server_port}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.dir / 'users.txt'}\n"
            "pool_mode = transaction\n"
            "max_client_conn = 200\n"
            "default_pool_size = 20\n"
            f"logfile = {self.dir / 'pgbouncer.log'}\n"
            f"pidfile = {self.dir / 'pgbouncer.pid'}\n"
            "admin_users = postgres\n"
        )
        if IS_ROOT:
            for path in (self.dir, *self.dir.iterdir()):
                shutil.chown(path, "postgres")
        self.proc = subprocess.Popen(
            as_postgres([shutil.which("pgbouncer") or "pgbouncer", str(ini)]),
            cwd="/",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )

    def dsn(self, dbname: str) -> str:
        return make_conninfo(host="127.0.0.1", port=self.port, user="postgres", dbname=dbname)

    def log_text(self) -> str:
        path = self.dir / "pgbouncer.log"
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def pgbouncer_dsn(pgflow_dsn: str) -> Iterator[str]:
    """DSN of the test's fresh database through PgBouncer in transaction mode."""
    if shutil.which("pgbouncer") is None:
        pytest.fail("pgbouncer is not installed: run `make setup`")
    params = conninfo_to_dict(pgflow_dsn)
    bouncer = PgBouncer(str(params.get("host", "127.0.0.1")), int(params["port"]))
    try:
        dsn = bouncer.dsn(str(params["dbname"]))
        wait_connectable(dsn)
        yield dsn
    finally:
        bouncer.stop()

"""The PostgreSQL server the benchmark runs on, its template database and fresh databases.

Without ``--dsn`` the server is pgflow's embedded dev cluster with its home in
``.pgflow-bench/`` (``PGFLOW_HOME``), so the user's own ``.pgflow/`` is never touched; it is
started if needed and stopped at the end if the benchmark started it. With ``--dsn`` the
benchmark uses that server; its role must be allowed to create databases.

Every workload (and every repeat) gets database ``pgflow_bench``, recreated from template
``pgflow_bench_tmpl`` (pgmq + pgflow installed, the bench flows compiled, NOTIFY enabled on
their queues as a worker would, the ceiling's raw queue created), so no history leaks from
one workload into the next. Peers get an empty ``pgflow_bench_peer`` instead.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import pgflow
from pgflow.worker.config import WorkerConfig

ROOT = Path(__file__).resolve().parent.parent
#: PGFLOW_HOME of the embedded cluster used by the benchmark.
BENCH_HOME = ROOT / ".pgflow-bench"
TEMPLATE_DB = "pgflow_bench_tmpl"
BENCH_DB = "pgflow_bench"
PEER_DB = "pgflow_bench_peer"
#: Raw pgmq queue of the ceiling measurement.
CEILING_QUEUE = "bench_ceiling"
#: Server settings recorded with the results.
SETTINGS = (
    "server_version",
    "synchronous_commit",
    "fsync",
    "shared_buffers",
    "max_connections",
    "wal_level",
    "max_wal_size",
    "autovacuum",
)

Echo = Callable[[str], None]


class BenchServer:
    """Connection details of the server and helpers to (re)create bench databases.

    Args:
        dsn: a server to use instead of the embedded cluster (any database on it).
        echo: receives progress lines.
    """

    def __init__(self, dsn: str | None, echo: Echo) -> None:
        self._echo = echo
        self.embedded = dsn is None
        self.started_cluster = False
        if dsn is None:
            from pgflow import dev

            os.environ[dev.HOME_ENV_VAR] = str(BENCH_HOME)
            self.started_cluster = not dev.status().running
            dsn = dev.up(echo=lambda line: echo(f"  {line}"))
        self.base_dsn = dsn
        self.superuser = False
        #: synchronous_commit of the databases made from now on (None: the server's).
        self.synchronous_commit: str | None = None

    def dsn(self, dbname: str) -> str:
        """Return the DSN of database ``dbname`` on the bench server."""
        return make_conninfo(self.base_dsn, dbname=dbname)

    @property
    def admin_dsn(self) -> str:
        """The server's maintenance database (``postgres``), for CREATE/DROP DATABASE."""
        return self.dsn("postgres")

    def close(self) -> None:
        """Drop the bench databases; stop the embedded cluster if this run started it."""
        try:
            with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
                for name in (BENCH_DB, PEER_DB, TEMPLATE_DB):
                    conn.execute(
                        sql.SQL("drop database if exists {} with (force)").format(
                            sql.Identifier(name)
                        )
                    )
        except psycopg.Error as exc:
            self._echo(f"  could not drop the bench databases: {exc}")
        if self.started_cluster:
            from pgflow import dev

            dev.down(echo=lambda line: self._echo(f"  {line}"))

    # ------------------------------------------------------------ databases

    def prepare_template(self, flows: list[Any]) -> None:
        """Build the template: pgflow installed, flows compiled, NOTIFY on, ceiling queue."""
        self._recreate(TEMPLATE_DB, template=None)
        dsn = self.dsn(TEMPLATE_DB)
        pgflow.install(dsn)
        throttle_ms = WorkerConfig(dsn=dsn).notify_throttle_ms
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute("select rolsuper from pg_roles where rolname = current_user")
            self.superuser = bool(row.fetchone()[0])  # type: ignore[index]
            for flow in flows:
                result = conn.execute(
                    "select pgflow.ensure_flow_compiled(%s, %s::jsonb, false)",
                    (flow.slug, json.dumps(flow.shape())),
                ).fetchone()
                if result is None or result[0].get("status") not in {"compiled", "verified"}:
                    raise RuntimeError(f"bench flow {flow.slug} not compiled: {result}")
                # As a worker does at start (pgflow.worker.startup.enable_notify).
                conn.execute("select pgmq.enable_notify_insert(%s, %s)", (flow.slug, throttle_ms))
            conn.execute("select pgmq.create(%s)", (CEILING_QUEUE,))

    def fresh_db(self, template: str | None = TEMPLATE_DB, name: str = BENCH_DB) -> str:
        """Drop and recreate a bench database (from the template by default); return its DSN."""
        self._recreate(name, template=template)
        return self.dsn(name)

    def _recreate(self, name: str, template: str | None) -> None:
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )
            if template is None:
                conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
            else:
                conn.execute(
                    sql.SQL("create database {} template {}").format(
                        sql.Identifier(name), sql.Identifier(template)
                    )
                )
            if self.synchronous_commit is not None:  # every session of the database gets it
                conn.execute(
                    sql.SQL("alter database {} set synchronous_commit = {}").format(
                        sql.Identifier(name), sql.Literal(self.synchronous_commit)
                    )
                )

    # ------------------------------------------------------------ description

    def describe(self) -> dict[str, Any]:
        """Server version and settings, host facts, and where the server is."""
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            settings = {
                name: conn.execute("select current_setting(%s, true)", (name,)).fetchone()[0]  # type: ignore[index]
                for name in SETTINGS
            }
        params = conninfo_to_dict(self.base_dsn)
        return {
            "server": "embedded dev cluster (.pgflow-bench)" if self.embedded else "--dsn",
            "host": params.get("host"),
            "port": params.get("port"),
            "settings": settings,
            "cpu_count": os.cpu_count(),
            # Other load on the machine shows in the spread: recorded at the start.
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(),
            "platform": platform.platform(),
            "pgflow": pgflow.__version__,
        }

"""The ``pgflow`` database of the dev cluster: created, then pg_cron, pgmq and pgflow in it."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from pgflow.dev.server import DBNAME, ROLE, Echo
from pgflow.errors import DevClusterError, InstallError, SchemaVersionMismatch
from pgflow.schema.install import install
from pgflow.schema.migrate import migrate


def dsn_for(port: int) -> str:
    """Return the connection URL of the dev cluster listening on ``port``."""
    return f"postgresql://{ROLE}@127.0.0.1:{port}/{DBNAME}"


def ensure_database(dsn: str, echo: Echo) -> None:
    """Create database pgflow if absent and install pg_cron, pgmq and pgflow into it.

    pg_cron is created only when the server preloads it. A database made by an older
    pgflow is upgraded (:func:`pgflow.schema.migrate.migrate`).

    Raises:
        DevClusterError: a statement failed (the message quotes the database error).
    """
    admin = dsn.rsplit("/", 1)[0] + "/postgres"
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
            exists = conn.execute(
                "select 1 from pg_catalog.pg_database where datname = %s", (DBNAME,)
            ).fetchone()
            if exists is None:
                conn.execute(sql.SQL("create database {}").format(sql.Identifier(DBNAME)))
                echo(f"pgflow dev: created database {DBNAME}")
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            preloaded = conn.execute("show shared_preload_libraries").fetchone()
            if preloaded is not None and "pg_cron" in str(preloaded[0]):
                conn.execute("create extension if not exists pg_cron")
            try:
                report = install(conn)
            except SchemaVersionMismatch:
                _migrate(conn, echo)
                return
    except psycopg.Error as exc:
        raise DevClusterError(f"preparing database {DBNAME} failed: {exc}") from exc
    if report.changed:
        echo(f"pgflow dev: {report}".replace("\n", "; "))


def _migrate(conn: psycopg.Connection[Any], echo: Echo) -> None:
    """Upgrade a dev database created by an older pgflow; warn (do not fail) if impossible."""
    try:
        echo(f"pgflow dev: {migrate(conn)}")
    except InstallError as exc:
        echo(
            f"pgflow dev: warning: {exc}; the cluster runs, but with another pgflow version "
            "(`pgflow dev destroy` then `pgflow dev up` starts afresh)"
        )

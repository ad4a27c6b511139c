"""Upgrade an installed pgflow schema to this package's version (``pgflow migrate``).

Upgrades follow the chain of upgrade scripts ``pgflow--A--B.sql`` shipped in
``pgflow/sql/`` (made by ``extension/build.py``, frozen once B is released). An extension
install is upgraded with ``ALTER EXTENSION pgflow UPDATE TO 'B'`` (the server must have the
scripts: ``make install-extension``); a plain-SQL install runs the same scripts. Each step
runs in its own transaction, and the whole migration holds a session advisory lock, so two
processes cannot migrate one database at once (the second waits, then finds nothing to do).
"""

from __future__ import annotations

import importlib.resources
import re
from collections import deque
from dataclasses import dataclass

import psycopg
from psycopg import sql

from pgflow._version import __version__
from pgflow.errors import InstallError, SchemaVersionMismatch
from pgflow.schema.install import INSTALL_LOCK_KEY
from pgflow.schema.upstream import UpstreamSchema, adopt, find_upstream

# Session advisory lock key held while migrating (the bytes of "pgflowM").
_MIGRATE_LOCK_KEY = 0x7067666C6F774D
_UPGRADE_SCRIPT = re.compile(r"^pgflow--(?P<src>[0-9.]+)--(?P<dst>[0-9.]+)\.sql$")


@dataclass(frozen=True)
class MigrateReport:
    """What :func:`migrate` did.

    Attributes:
        from_version: the schema version found before migrating.
        to_version: the schema version afterwards.
        steps: the upgrade steps applied, as ``(from, to)`` pairs, in order.
        method: ``"extension"`` or ``"sql"``: how pgflow is installed.
    """

    from_version: str
    to_version: str
    steps: tuple[tuple[str, str], ...]
    method: str

    def __str__(self) -> str:
        if not self.steps:
            return f"pgflow {self.to_version}: up to date"
        chain = " -> ".join([self.steps[0][0], *(dst for _, dst in self.steps)])
        return f"pgflow migrated {chain} ({self.method})"


def upgrade_path(from_version: str, to_version: str) -> list[tuple[str, str]]:
    """Return the shortest chain of packaged upgrade scripts between two versions.

    Args:
        from_version: the installed version, such as ``"0.1.0"``.
        to_version: the wanted version.

    Returns:
        ``[(from, next), (next, ...), ...]``; empty when the versions are equal.

    Raises:
        SchemaVersionMismatch: no chain of packaged scripts leads there.
        InstallError: the package has no SQL scripts (a checkout before ``make build``).
    """
    edges: dict[str, list[str]] = {}
    scripts = importlib.resources.files("pgflow") / "sql"
    if not scripts.is_dir():
        raise InstallError(
            f"packaged SQL {scripts} is missing: in a source checkout (editable install) run "
            "`make build`, which generates it; wheels carry it"
        )
    for entry in scripts.iterdir():
        match = _UPGRADE_SCRIPT.match(entry.name)
        if match:
            edges.setdefault(match["src"], []).append(match["dst"])
    previous: dict[str, str | None] = {from_version: None}
    queue = deque([from_version])
    while queue:
        version = queue.popleft()
        if version == to_version:
            path: list[tuple[str, str]] = []
            while previous[version] is not None:
                src = previous[version]
                assert src is not None
                path.append((src, version))
                version = src
            return path[::-1]
        for nxt in edges.get(version, []):
            if nxt not in previous:
                previous[nxt] = version
                queue.append(nxt)
    raise SchemaVersionMismatch(
        f"no upgrade path from pgflow {from_version} to {to_version} in this package"
    )


def migrate(conn_or_dsn: psycopg.Connection | str) -> MigrateReport:
    """Upgrade the pgflow schema of one database to this package's version.

    A schema that upstream pgflow 0.14.x installed is adopted in place, as ``pgflow
    install`` does (:mod:`pgflow.schema.upstream`).

    Args:
        conn_or_dsn: an autocommit psycopg connection (superuser or the schema owner), or
            a DSN to open one.

    Returns:
        A :class:`MigrateReport`; ``steps`` is empty when the schema was up to date.

    Raises:
        InstallError: pgflow is not installed (run ``pgflow install``), or the server lacks
            the extension files an extension upgrade needs, or a step failed (that step is
            rolled back; earlier steps stay applied).
        SchemaVersionMismatch: the database is newer than this package, or no chain of
            upgrade scripts leads from its version to this package's.
    """
    if isinstance(conn_or_dsn, str):
        with psycopg.connect(conn_or_dsn, autocommit=True) as conn:
            return _migrate(conn)
    return _migrate(conn_or_dsn)


def _migrate(conn: psycopg.Connection) -> MigrateReport:
    conn.execute("select pg_catalog.pg_advisory_lock(%s)", (_MIGRATE_LOCK_KEY,))
    try:
        installed = _installed_version(conn)
        if installed is None:
            found = find_upstream(conn)
            if found is None:
                raise InstallError("pgflow is not installed in this database: run `pgflow install`")
            _adopt(conn, found)
            return MigrateReport(
                "upstream 0.14", __version__, (("upstream 0.14", __version__),), "sql"
            )
        method = "extension" if _is_extension(conn) else "sql"
        if _as_tuple(installed) > _as_tuple(__version__):
            raise SchemaVersionMismatch(
                f"the database has pgflow {installed}, newer than this package ({__version__})"
            )
        steps = upgrade_path(installed, __version__)
        for src, dst in steps:
            _apply(conn, method, src, dst)
        return MigrateReport(installed, __version__, tuple(steps), method)
    finally:
        conn.execute("select pg_catalog.pg_advisory_unlock(%s)", (_MIGRATE_LOCK_KEY,))


def _apply(conn: psycopg.Connection, method: str, src: str, dst: str) -> None:
    try:
        with conn.transaction():
            if method == "extension":
                available = conn.execute(
                    "select exists (select 1 from pg_catalog.pg_available_extension_versions"
                    " where name = 'pgflow' and version = %s)",
                    (dst,),
                ).fetchone()
                if not (available and available[0]):
                    raise InstallError(
                        f"the server has no pgflow {dst} extension files: run "
                        "`make install-extension` on the server, then migrate again"
                    )
                update = sql.SQL("alter extension pgflow update to {}").format(sql.Literal(dst))
                conn.execute(update)
            else:
                script = importlib.resources.files("pgflow") / "sql" / f"pgflow--{src}--{dst}.sql"
                conn.execute(script.read_text())
    except psycopg.Error as exc:
        raise InstallError(f"upgrade {src} -> {dst} failed and was rolled back: {exc}") from exc


def _adopt(conn: psycopg.Connection, found: UpstreamSchema) -> None:
    try:
        with conn.transaction():
            # the install's lock too: `pgflow install` adopts the same way
            conn.execute("select pg_catalog.pg_advisory_xact_lock(%s)", (INSTALL_LOCK_KEY,))
            if _installed_version(conn) is not None:
                return  # a concurrent install adopted it meanwhile
            adopt(conn, found)
    except psycopg.Error as exc:
        raise InstallError(
            f"adopting the upstream schema failed and was rolled back: {exc}"
        ) from exc


def _installed_version(conn: psycopg.Connection) -> str | None:
    present = conn.execute(
        "select pg_catalog.to_regclass('pgflow.installed_versions') is not null"
    ).fetchone()
    if not (present and present[0]):
        return None
    row = conn.execute("select pgflow.version()").fetchone()
    return None if row is None else str(row[0])


def _is_extension(conn: psycopg.Connection) -> bool:
    row = conn.execute(
        "select exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow')"
    ).fetchone()
    return bool(row and row[0])


def _as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))
